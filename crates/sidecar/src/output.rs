//! One line of a command's output on stdout: a closed pipe (`vaultlink paths … | head`) ends the
//! program quietly, and any other failure to write is said on stderr with exit code 2. Its own
//! module, so the commands printing in other files (`cli_graph`) need not import `cli`.

/// Prints `line` and a line break on stdout.
pub fn print_line(line: &str) {
    use std::io::Write as _;
    if let Err(error) = writeln!(std::io::stdout().lock(), "{line}") {
        if error.kind() == std::io::ErrorKind::BrokenPipe {
            std::process::exit(0);
        }
        eprintln!("vaultlink: could not write the output: {error}");
        std::process::exit(2);
    }
}
