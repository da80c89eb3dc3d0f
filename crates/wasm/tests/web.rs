//! The wasm `Vault` as JavaScript sees it, run in a headless browser.

use vaultlink_wasm::{lint_rules, parse_note, Vault};
use wasm_bindgen::JsValue;
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

fn get(value: &JsValue, key: &str) -> JsValue {
    js_sys::Reflect::get(value, &key.into()).expect("the object has the key")
}

fn sample() -> Vault {
    let mut vault = Vault::new();
    vault.upsert("Home.md", "Start at [[Projects/Alpha|Alpha]] and ![[diagram.png]].\n[b](Beta.md#Intro)");
    vault.upsert("Projects/Alpha.md", "Back [[Home]].");
    vault.upsert("Beta.md", "");
    vault.upsert("diagram.png", "");
    vault
}

#[wasm_bindgen_test]
fn outgoing_links_cross_as_plain_objects() {
    let links = get(&sample().outgoing_links("Home.md").expect("Home.md is a note"), "links");
    let links = js_sys::Array::from(&links);
    assert_eq!(links.length(), 3);
    let first = links.get(0);
    assert_eq!(get(&first, "kind").as_string().as_deref(), Some("wikilink"));
    assert_eq!(get(&first, "resolved_path").as_string().as_deref(), Some("Projects/Alpha.md"));
    assert_eq!(get(&first, "display").as_string().as_deref(), Some("Alpha"));
    assert_eq!(get(&links.get(1), "kind").as_string().as_deref(), Some("embed"));
    assert_eq!(get(&links.get(2), "subpath").as_string().as_deref(), Some("#Intro"));
    // Objects, not Maps, so JSON.stringify sees the fields.
    let json = js_sys::JSON::stringify(&first).expect("stringify").as_string().expect("a string");
    assert!(json.contains("\"target\":\"Projects/Alpha\""), "{json}");
}

#[wasm_bindgen_test]
fn backlinks_follow_rename_and_remove() {
    let mut vault = sample();
    let count = |vault: &Vault| js_sys::Array::from(&get(&vault.backlinks("Home.md").expect("a note"), "backlinks")).length();
    assert_eq!(count(&vault), 1);
    assert!(vault.rename("Projects/Alpha.md", "Archive/Alpha.md"));
    assert_eq!(count(&vault), 1);
    assert!(vault.remove("Archive/Alpha.md"));
    assert_eq!(count(&vault), 0);
    assert_eq!(vault.note_count(), 2);
}

#[wasm_bindgen_test]
fn missing_targets_follow_upsert_remove_and_rename() {
    let mut vault = sample();
    assert_eq!(vault.missing_targets(), 0);
    // Two links to one missing note (its name in two cases) and one to another.
    vault.upsert("Gamma.md", "[[Later]] [[later]] [[Elsewhere]]");
    assert_eq!(vault.missing_targets(), 2);
    vault.upsert("Later.md", "");
    assert_eq!(vault.missing_targets(), 1);
    assert!(vault.rename("Later.md", "Sooner.md"));
    assert_eq!(vault.missing_targets(), 2);
    assert!(vault.remove("Gamma.md"));
    assert_eq!(vault.missing_targets(), 0);
}

#[wasm_bindgen_test]
fn a_missing_note_throws_with_its_code() {
    let error = sample().outgoing_links("Nope.md").expect_err("no such note");
    let message: JsValue = error.into();
    let text = get(&message, "message").as_string().expect("an Error with a message");
    assert!(text.starts_with("note_not_found"), "{text}");
}

#[wasm_bindgen_test]
fn call_answers_with_ok_or_a_structured_error() {
    let mut vault = sample();
    let arguments = js_sys::Object::new();
    js_sys::Reflect::set(&arguments, &"path".into(), &"Home".into()).expect("set");
    let answer = vault.call("get_outgoing_links", arguments.into(), None, None, None, JsValue::UNDEFINED, None).expect("converts");
    assert_eq!(get(&answer, "ok").as_bool(), Some(true));
    assert_eq!(get(&get(&answer, "result"), "path").as_string().as_deref(), Some("Home.md"));

    let answer = vault.call("get_outgoing_links", JsValue::NULL, None, None, None, JsValue::UNDEFINED, None).expect("converts");
    assert_eq!(get(&answer, "ok").as_bool(), Some(false));
    assert_eq!(get(&get(&answer, "error"), "code").as_string().as_deref(), Some("invalid_arguments"));

    // As the sidecar answers it: the tool does not exist, whatever its arguments.
    let answer = vault.call("no_such_tool", js_sys::Object::new().into(), None, None, None, JsValue::UNDEFINED, None).expect("converts");
    assert_eq!(get(&get(&answer, "error"), "code").as_string().as_deref(), Some("unknown_tool"));
}

#[wasm_bindgen_test]
fn parse_note_gives_positions_as_obsidian_counts() {
    // The emoji is two UTF-16 units and four UTF-8 bytes.
    let parsed = parse_note("Folder/Note.md", "---\nup: \"[[Home]]\"\n---\n😀 [[Alpha|a]]\n").expect("parses");
    let links = js_sys::Array::from(&get(&parsed, "links"));
    assert_eq!(links.length(), 2);
    assert_eq!(get(&links.get(0), "source").as_string().as_deref(), Some("property"));
    assert_eq!(get(&links.get(0), "key").as_string().as_deref(), Some("up"));
    assert_eq!(get(&parsed, "title").as_string().as_deref(), Some("Note"));
    let positions = js_sys::Array::from(&get(&parsed, "link_positions"));
    let start = get(&positions.get(1), "start");
    assert_eq!(get(&start, "line").as_f64(), Some(3.0));
    assert_eq!(get(&start, "col").as_f64(), Some(3.0));
    // "---\n" 4 + "up: \"[[Home]]\"\n" 15 + "---\n" 4 + "😀 " 3.
    assert_eq!(get(&start, "offset").as_f64(), Some(26.0));
}

#[wasm_bindgen_test]
fn find_evidence_reads_texts_through_a_javascript_callback() {
    let mut vault = Vault::new();
    let texts = js_sys::Map::new();
    for (path, text) in [
        ("Alpha.md", "# Alpha\nAlpha is the first letter."),
        ("Home.md", "Everything starts with alpha, as [[Alpha]] says."),
        ("Other.md", "Nothing here."),
    ] {
        vault.upsert(path, text);
        texts.set(&path.into(), &text.into());
    }
    // `read(path)` as the plugin passes it: the texts it read, `undefined` for any other.
    let read = js_sys::Function::new_with_args("path", "return this.get(path);").bind0(&texts);
    let arguments = js_sys::JSON::parse(r#"{"title": "ALPHA", "limit": 1}"#).expect("JSON");
    let answer = vault.call("find_evidence", arguments, Some(read.clone()), None, None, JsValue::UNDEFINED, None).expect("an answer");
    assert_eq!(get(&answer, "ok").as_bool(), Some(true));
    let result = get(&answer, "result");
    assert_eq!(get(&result, "total").as_f64(), Some(2.0));
    assert_eq!(get(&result, "limited").as_bool(), Some(true));
    let first = js_sys::Array::from(&get(&result, "matches")).get(0);
    assert_eq!(get(&first, "path").as_string().as_deref(), Some("Alpha.md"));
    assert_eq!(get(&first, "match").as_string().as_deref(), Some("title"));
    assert_eq!(get(&first, "excerpt").as_string().as_deref(), Some("Alpha is the first letter."));

    let empty = js_sys::JSON::parse(r#"{"title": " "}"#).expect("JSON");
    let refused = vault.call("find_evidence", empty, Some(read), None, None, JsValue::UNDEFINED, None).expect("an answer");
    assert_eq!(get(&refused, "ok").as_bool(), Some(false));
    assert_eq!(get(&get(&refused, "error"), "code").as_string().as_deref(), Some("invalid_arguments"));
}

#[wasm_bindgen_test]
fn lint_rules_name_every_kind_lint_wiki_takes() {
    let rules = js_sys::Array::from(&lint_rules().expect("the rules serialize"));
    assert_eq!(rules.length() as usize, vaultlink_core::lint::every_rule().count());
    let first = rules.get(0);
    assert_eq!(get(&first, "kind").as_string().as_deref(), Some("unresolved_link"));
    assert_eq!(get(&first, "code").as_string().as_deref(), Some("unresolved-link"));
    assert!(get(&first, "summary").as_string().is_some_and(|summary| !summary.is_empty()));
    assert_eq!(get(&first, "by_default").as_bool(), Some(true));
    // A rule that runs only when named says so.
    let dead_end = rules.iter().find(|rule| get(rule, "kind").as_string().as_deref() == Some("dead_end")).expect("dead_end");
    assert_eq!(get(&dead_end, "by_default").as_bool(), Some(false));
    // Every kind it names is one lint_wiki accepts.
    let mut vault = sample();
    for rule in rules.iter() {
        let arguments = js_sys::Object::new();
        js_sys::Reflect::set(&arguments, &"kinds".into(), &js_sys::Array::of1(&get(&rule, "kind"))).expect("set");
        let outcome = vault.call("lint_wiki", arguments.into(), None, None, None, JsValue::UNDEFINED, None).expect("call");
        assert_eq!(get(&outcome, "ok").as_bool(), Some(true), "{:?}", get(&rule, "kind"));
    }
}

#[wasm_bindgen_test]
fn upsert_many_gives_the_index_upsert_gives() {
    let files = [("Home.md", "[[Alpha]] [[Missing]]"), ("Alpha.md", "Back [[Home]]."), ("a/Alpha.md", ""), ("img.png", "")];
    let mut one_by_one = Vault::new();
    for (path, text) in files {
        one_by_one.upsert(path, text);
    }
    let mut many = Vault::new();
    let paths: Vec<String> = files.iter().map(|(path, _)| (*path).to_owned()).collect();
    let texts: Vec<String> = files.iter().map(|(_, text)| (*text).to_owned()).collect();
    many.upsert_many(paths.clone(), texts).expect("as many texts as paths");
    let json = |vault: &Vault, path: &str| {
        js_sys::JSON::stringify(&vault.outgoing_links(path).expect("a note")).ok().and_then(|text| text.as_string())
    };
    for path in ["Home.md", "Alpha.md"] {
        assert_eq!(json(&many, path), json(&one_by_one, path), "{path}");
    }
    assert_eq!(many.note_count(), 3);
    assert!(many.upsert_many(paths, Vec::new()).is_err());
}

#[wasm_bindgen_test]
fn an_approved_move_answers_the_batch_the_plugin_carries_out() {
    let mut vault = Vault::new();
    let texts = js_sys::Map::new();
    for (path, text) in [("A.md", "see [[Old]]"), ("Old.md", "# Old")] {
        vault.upsert(path, text);
        texts.set(&path.into(), &text.into());
    }
    let read = js_sys::Function::new_with_args("path", "return this.get(path);").bind0(&texts);
    let arguments = js_sys::JSON::parse(r#"{"from": "Old", "to": "New"}"#).expect("JSON");
    let needs = vault.needs("move_note", arguments.clone(), JsValue::UNDEFINED, None).expect("converts");
    assert_eq!(notes_of(&needs), vec!["A.md".to_owned()]);
    // The call as `needs` read it, by its number: the arguments are not read again.
    let call = get(&needs, "call").as_f64().map(|number| number as u32);
    assert!(call.is_some(), "a call read is kept by number");
    let preview =
        vault.call("move_note", JsValue::UNDEFINED, Some(read.clone()), None, Some(7), JsValue::UNDEFINED, call).expect("an answer");
    assert!(get(&preview, "change").is_undefined(), "a preview changes nothing");
    let hash = get(&get(&preview, "result"), "plan_hash").as_string().expect("a plan hash");

    let approved = js_sys::JSON::parse(&format!(r#"{{"from": "Old", "to": "New", "approved_plan_hash": "{hash}"}}"#)).expect("JSON");
    let applied = vault.call("move_note", approved, Some(read.clone()), None, Some(7), JsValue::UNDEFINED, None).expect("an answer");
    let change = get(&applied, "change");
    assert_eq!(get(&change, "kind").as_string().as_deref(), Some("batch"));
    let write = js_sys::Array::from(&get(&get(&change, "batch"), "writes")).get(0);
    assert_eq!(get(&write, "text").as_string().as_deref(), Some("see [[New]]"));
    assert_eq!(get(&write, "temporary").as_string().as_deref(), Some(".A.md.vaultlink-7.tmp"));

    vault.plan_applied(&hash);
    let elsewhere = js_sys::JSON::parse(&format!(r#"{{"from": "Old", "to": "Other", "approved_plan_hash": "{hash}"}}"#)).expect("JSON");
    let again = vault.call("move_note", elsewhere, Some(read), None, None, JsValue::UNDEFINED, None).expect("an answer");
    let error = get(&again, "error");
    // A hash applied once is never applied again, whatever the call around it: the answer says
    // the plan was applied already (a retry), and nothing is written.
    assert_eq!(get(&error, "code").as_string().as_deref(), Some("already_applied"));
    assert!(get(&error, "message").as_string().is_some_and(|message| message.contains("applied already")));
    assert!(get(&again, "change").is_undefined(), "nothing is carried out");
}

#[wasm_bindgen_test]
fn moves_made_outside_obsidian_are_observed_once_the_first_index_is_whole() {
    let mut vault = sample();
    let detected = |vault: &mut Vault| {
        let answer =
            vault.call("detected_moves", js_sys::Object::new().into(), None, None, None, JsValue::UNDEFINED, None).expect("converts");
        get(&answer, "result")
    };
    assert_eq!(get(&detected(&mut vault), "observed").as_bool(), Some(false), "no view to compare with yet");
    vault.begin_observing();
    // `mv Projects/Alpha.md Archive/Alpha.md`, as Obsidian's watcher reports it.
    vault.remove("Projects/Alpha.md");
    vault.upsert("Archive/Alpha.md", "Back [[Home]].");
    let answer = detected(&mut vault);
    assert_eq!(get(&answer, "observed").as_bool(), Some(true));
    assert_eq!(get(&answer, "links_broken").as_f64(), Some(1.0));
    let first = js_sys::Reflect::get_u32(&get(&answer, "moves"), 0).expect("a move");
    assert_eq!(get(&first, "to").as_string().as_deref(), Some("Archive/Alpha.md"));
    // `heal_moves` reads what the move's plan reads, where the notes are now: the note whose link
    // it rewrites and the moved note, whose own relative links may need it.
    let needs = vault.needs("heal_moves", js_sys::Object::new().into(), JsValue::UNDEFINED, None).expect("converts");
    assert_eq!(notes_of(&needs), vec!["Home.md".to_owned(), "Archive/Alpha.md".to_owned()]);
    assert_eq!(get(&needs, "observed").as_bool(), Some(true), "it reads what the plugin observed");
}

/// The notes a `needs` answer names.
fn notes_of(needs: &JsValue) -> Vec<String> {
    js_sys::Array::from(&get(needs, "notes")).iter().filter_map(|path| path.as_string()).collect()
}
