//! Obsidian's own settings that change what the index does, read from the text of the
//! vault's `.obsidian/app.json` (the edges read the file; this only reads its text), so the
//! plugin and the sidecar configure the index the same way.

use serde::Deserialize;

use crate::index::{IndexConfig, NewLinkFormat};

/// The settings of `app.json` that matter here; everything else is ignored.
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
struct AppJson {
    /// "Excluded files": folder paths (`Archive/`) or regular expressions (`/…/`).
    #[serde(default)]
    user_ignore_filters: Vec<String>,
    /// "Default location for new attachments": a folder, `/` for the root, or `./…` beside
    /// the note.
    attachment_folder_path: Option<String>,
    /// Any JSON value: one that is not a known format's name is read as `shortest`, saying so,
    /// without losing the file's other settings.
    new_link_format: Option<serde_json::Value>,
    /// "Use [[Wikilinks]]" turned off; anything but `true` leaves wikilinks.
    use_markdown_links: Option<serde_json::Value>,
}

/// The index configuration `app.json` asks for, with a sentence for each setting that could
/// not be followed. Text that is not JSON gives Obsidian's defaults and one warning.
pub fn from_app_json(app_json: &str) -> (IndexConfig, Vec<String>) {
    let mut config = IndexConfig::obsidian_defaults();
    let mut warnings = Vec::new();
    let app: AppJson = match serde_json::from_str(app_json) {
        Ok(app) => app,
        Err(error) => {
            warnings.push(format!(".obsidian/app.json is not valid JSON ({error}); using Obsidian's defaults"));
            return (config, warnings);
        }
    };
    for filter in app.user_ignore_filters {
        if filter.len() > 1 && filter.starts_with('/') && filter.ends_with('/') {
            warnings.push(format!("the excluded-files pattern {filter} is a regular expression, which vaultlink does not follow yet"));
            continue;
        }
        let folder = filter.trim().trim_matches('/');
        if !folder.is_empty() {
            config.excluded_folders.push(folder.to_owned());
        }
    }
    config.attachment_folder =
        app.attachment_folder_path.map(|folder| folder.trim().trim_end_matches('/').to_owned()).filter(|folder| !folder.is_empty());
    config.new_link_format = match app.new_link_format.as_ref().map(|value| value.as_str().ok_or(value)) {
        None | Some(Ok("shortest")) => NewLinkFormat::Shortest,
        Some(Ok("relative")) => NewLinkFormat::Relative,
        Some(Ok("absolute")) => NewLinkFormat::Absolute,
        Some(Ok(other)) => {
            warnings.push(format!("the new link format {other:?} is unknown; using the shortest form"));
            NewLinkFormat::Shortest
        }
        Some(Err(other)) => {
            warnings.push(format!("the new link format {other} is not a format's name; using the shortest form"));
            NewLinkFormat::Shortest
        }
    };
    config.use_markdown_links = app.use_markdown_links.as_ref().and_then(serde_json::Value::as_bool).unwrap_or(false);
    (config, warnings)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn folders_attachments_and_link_format_are_read() {
        let (config, warnings) = from_app_json(
            r#"{"userIgnoreFilters": ["Archive/", "/^tmp/", "Templates"], "attachmentFolderPath": "Attachments/",
                "newLinkFormat": "relative", "theme": "moonstone"}"#,
        );
        assert_eq!(config.excluded_folders, ["Archive", "Templates"]);
        assert_eq!(config.attachment_folder.as_deref(), Some("Attachments"));
        assert_eq!(config.new_link_format, NewLinkFormat::Relative);
        assert!(!config.use_markdown_links);
        assert_eq!(warnings.len(), 1, "{warnings:?}");
        assert!(from_app_json(r#"{"useMarkdownLinks": true}"#).0.use_markdown_links);
    }

    #[test]
    fn text_that_is_not_json_gives_the_defaults_and_says_so() {
        let (config, warnings) = from_app_json("{ not json");
        assert_eq!(config, IndexConfig::obsidian_defaults());
        assert!(warnings[0].contains("not valid JSON"));
    }
}
