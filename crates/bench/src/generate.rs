//! A deterministic generated vault, to show how each cost grows with the number of notes.
//!
//! The same seed and note count give the same files, byte for byte. The mix follows what the
//! real corpora hold, scaled: notes of a few hundred bytes to a few kilobytes in nested
//! folders; frontmatter on most notes (tags, aliases, a property link on some); wikilinks to
//! popular notes more often than to others (a power law, as in real wikis), with headings,
//! block references, display texts and embeds; Markdown links; links that find nothing; names
//! shared by two notes in different folders (one note in 500); tables; and code blocks holding link syntax that
//! is not a link.

use std::fmt::Write as _;
use std::path::Path;

use anyhow::{Context, Result};

/// A xorshift generator: small, fast, and the same everywhere.
struct Random(u64);

impl Random {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn below(&mut self, bound: usize) -> usize {
        (self.next() % bound.max(1) as u64) as usize
    }

    fn chance(&mut self, percent: u64) -> bool {
        self.next() % 100 < percent
    }

    /// An index below `bound`, small indexes far more often: `bound^u` for uniform `u`, the
    /// shape of links in a wiki where a few pages are linked from everywhere.
    fn popular(&mut self, bound: usize) -> usize {
        let uniform = (self.next() % 1_000_000) as f64 / 1_000_000.0;
        ((bound as f64).powf(uniform) as usize).saturating_sub(1).min(bound - 1)
    }
}

const SYLLABLES: [&str; 24] = [
    "ka", "lo", "mi", "ren", "ta", "vo", "shi", "el", "dor", "an", "qu", "is", "ber", "ul", "na", "ox", "pe", "ri", "sa", "ton", "ga",
    "me", "li", "zu",
];

/// A word of two or three syllables; `index` picks it, so the vocabulary is fixed.
fn word(index: usize) -> String {
    let mut word = String::new();
    let mut rest = index;
    for _ in 0..2 + index % 2 {
        word.push_str(SYLLABLES[rest % SYLLABLES.len()]);
        rest /= SYLLABLES.len();
    }
    word
}

fn capitalised(word: &str) -> String {
    let mut chars = word.chars();
    chars.next().map(|first| first.to_uppercase().chain(chars).collect()).unwrap_or_default()
}

struct Plan {
    /// Folder (empty for the root) and title of each note.
    notes: Vec<(String, String)>,
}

fn plan(count: usize, random: &mut Random) -> Plan {
    let folder_count = ((count as f64).sqrt() as usize / 2).max(1);
    let folders: Vec<String> = (0..folder_count)
        .map(|index| {
            let top = capitalised(&word(index % 12 + 400));
            match index % 4 {
                0 => String::new(),
                1 => top,
                _ => format!("{top}/{}", capitalised(&word(index + 500))),
            }
        })
        .collect();
    let mut seen = std::collections::HashSet::new();
    let mut notes: Vec<(String, String)> = Vec::with_capacity(count);
    while notes.len() < count {
        let words = 1 + random.below(3);
        let title: Vec<String> = (0..words).map(|_| word(random.below(3000))).collect();
        let mut title = capitalised(&title.join(" "));
        // About one note in five hundred shares its name with a note elsewhere.
        let shared = random.next().is_multiple_of(500) && !notes.is_empty();
        if shared {
            // From the less linked half: a popular page rarely has a namesake.
            let other = notes.len() / 2 + random.below(notes.len() - notes.len() / 2);
            title = notes[other].1.clone();
        }
        let folder = folders[random.below(folders.len())].clone();
        // Names are unique but for the shared ones, and never twice in one folder.
        if (!shared && !seen.insert(title.to_lowercase())) || !seen.insert(format!("{folder}/{title}").to_lowercase()) {
            continue;
        }
        notes.push((folder, title));
    }
    Plan { notes }
}

fn sentence(random: &mut Random, words: usize) -> String {
    let mut text = String::new();
    for index in 0..words {
        let word = word(random.popular(3000));
        if index == 0 {
            text.push_str(&capitalised(&word));
        } else {
            text.push(' ');
            text.push_str(&word);
        }
    }
    text.push('.');
    text
}

fn note_text(plan: &Plan, which: usize, random: &mut Random) -> String {
    let mut text = String::new();
    let link = |random: &mut Random| -> String {
        let target = &plan.notes[random.popular(plan.notes.len())].1;
        match random.below(20) {
            0 => format!("[[{target}#{}]]", capitalised(&word(random.below(40)))),
            1 => format!("[[{target}|{}]]", word(random.below(3000))),
            2 => format!("![[{target}]]"),
            3 => format!("[{}]({}.md)", word(random.below(3000)), target.replace(' ', "%20")),
            4 => format!("[[{} {}]]", capitalised(&word(random.below(3000))), word(random.below(50))),
            5 => format!("[[{target}#^b{}]]", random.below(5)),
            _ => format!("[[{target}]]"),
        }
    };
    if random.chance(70) {
        text.push_str("---\n");
        let _ = writeln!(text, "tags: [{}, {}]", word(random.below(60)), word(random.below(60)));
        if random.chance(30) {
            let _ = writeln!(text, "aliases: [{}]", capitalised(&word(random.below(3000) + 3000)));
        }
        if random.chance(25) {
            let target = &plan.notes[random.popular(plan.notes.len())].1;
            let _ = writeln!(text, "related: \"[[{target}]]\"");
        }
        let _ = writeln!(text, "created: 2026-{:02}-{:02}", 1 + random.below(12), 1 + random.below(28));
        text.push_str("---\n");
    }
    let _ = writeln!(text, "# {}\n", plan.notes[which].1);
    for section in 0..1 + random.below(4) {
        if section > 0 {
            let _ = writeln!(text, "## {}\n", capitalised(&word(random.below(40))));
        }
        for _ in 0..1 + random.below(3) {
            let length = 6 + random.below(20);
            let mut paragraph = sentence(random, length);
            for _ in 0..random.below(4) {
                paragraph.push(' ');
                paragraph.push_str(&link(random));
                paragraph.push(' ');
                let length = 4 + random.below(12);
                paragraph.push_str(&sentence(random, length));
            }
            if random.chance(15) {
                let _ = write!(paragraph, " ^b{}", random.below(5));
            }
            text.push_str(&paragraph);
            text.push_str("\n\n");
        }
        match random.below(12) {
            0 => {
                let _ = writeln!(text, "| {} | {} |\n|---|---|\n| {} | {} |\n", word(1), word(2), link(random), word(3));
            }
            1 => {
                let _ = writeln!(text, "```\nnot a link: [[{}]]\n```\n", word(random.below(3000)));
            }
            2 => {
                let _ = writeln!(text, "- {}\n- {}\n", link(random), sentence(random, 5));
            }
            _ => {}
        }
    }
    text
}

/// Writes a vault of `count` notes (and a few attachments) into `dir`, which must not exist
/// or be empty. Returns the bytes of Markdown written.
pub fn write_vault(dir: &Path, count: usize, seed: u64) -> Result<u64> {
    if dir.exists() && std::fs::read_dir(dir)?.next().is_some() {
        anyhow::bail!("{} is not empty; give a new folder for the generated vault", dir.display());
    }
    let mut random = Random(seed.max(1));
    let plan = plan(count, &mut random);
    let mut bytes = 0u64;
    for which in 0..plan.notes.len() {
        let (folder, title) = &plan.notes[which];
        let folder_path = dir.join(folder);
        std::fs::create_dir_all(&folder_path).with_context(|| format!("creating {}", folder_path.display()))?;
        let text = note_text(&plan, which, &mut random);
        bytes += text.len() as u64;
        std::fs::write(folder_path.join(format!("{title}.md")), text)?;
    }
    for index in 0..count / 100 {
        std::fs::write(dir.join(format!("{}.png", word(index + 6000))), [0x89, b'P', b'N', b'G'])?;
    }
    Ok(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_repeat_only_where_meant_to() {
        let plan = plan(10_000, &mut Random(1));
        let mut names = std::collections::HashMap::new();
        for (_, title) in &plan.notes {
            *names.entry(title.to_lowercase()).or_insert(0) += 1;
        }
        let repeated = names.values().filter(|count| **count > 1).count();
        assert!(repeated <= 40, "{repeated} names are held by more than one note");
    }

    #[test]
    fn the_same_seed_writes_the_same_vault() {
        let texts = |seed| {
            let mut random = Random(seed);
            let plan = plan(300, &mut random);
            (0..plan.notes.len()).map(|which| note_text(&plan, which, &mut random)).collect::<Vec<_>>()
        };
        assert_eq!(texts(7), texts(7));
        assert_ne!(texts(7), texts(8));
    }
}
