//! A YAML value as the short text lint compares: scalars as written, cut to a bound.

/// The most characters kept of a property name or value, and of an H1; longer ones are cut
/// there. Lint compares names and short vocabulary values, never long prose.
pub const MAX_VALUE_CHARS: usize = 200;

/// A YAML scalar as text; `None` for null, a list or a mapping.
pub fn yaml_scalar_text(value: &serde_yaml::Value) -> Option<String> {
    match value {
        serde_yaml::Value::String(text) => Some(text.clone()),
        serde_yaml::Value::Number(number) => Some(number.to_string()),
        serde_yaml::Value::Bool(flag) => Some(flag.to_string()),
        serde_yaml::Value::Tagged(tagged) => yaml_scalar_text(&tagged.value),
        _ => None,
    }
}

/// `text` cut to [`MAX_VALUE_CHARS`] characters.
pub fn cut_chars(text: &str) -> String {
    match text.char_indices().nth(MAX_VALUE_CHARS) {
        Some((end, _)) => text[..end].to_owned(),
        None => text.to_owned(),
    }
}
