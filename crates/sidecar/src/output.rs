//! One line of a command's output on stdout: a closed pipe (`vaultlink paths … | head`) ends the
//! program quietly, and any other failure to write is said on stderr with exit code 2; and the
//! end of a command once its answer is written, which frees nothing it built. Its own module, so
//! the commands printing in other files (`cli_graph`) need not import `cli`.

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

/// Ends a command once its answer is written: stdout flushed, then the process exits with `code`
/// without dropping what the command built (the index of the whole vault, the answer's values),
/// which the system takes back at once, where dropping it frees it one allocation at a time.
pub fn exit_after_answer(code: i32) -> ! {
    use std::io::Write as _;
    if let Err(error) = std::io::stdout().lock().flush() {
        if error.kind() == std::io::ErrorKind::BrokenPipe {
            std::process::exit(0);
        }
        eprintln!("vaultlink: could not write the output: {error}");
        std::process::exit(2);
    }
    std::process::exit(code)
}
