//! The table of each program's settings says what the sources read: every name a
//! program's code (its package and the workspace packages it depends on) reads through
//! `env_opt("…")`, `env_parse("…", …)`, `env_secs`, `env_flag` or `std::env::var` is in
//! the table, and every name in the table stands in that code.

mod common;

use std::collections::BTreeSet;

use common::{program_packages, sources, workspace};

use dataflow_wiring::settings::PROGRAM_SETTINGS;

/// Functions whose first argument, a string literal, is a setting's name.
const READERS: &[&str] = &[
    "env_opt",
    "env_parse",
    "env_secs",
    "env_flag",
    "var",
    "var_os",
    "secs",
    "secs_ms",
];

/// Programs that use only a part of a library's settings (the host loads the model the
/// bridges' library describes, and nothing of their personas): their own reads are
/// checked, and that the table's names stand in their code.
const PART_OF_A_LIBRARY: &[&str] = &["model-host"];

/// Upper-case string literals of `code` (three characters or more), each with
/// whether a reader function takes it as its first argument. Comments, character
/// literals and escapes are skipped as Rust reads them.
fn literals(code: &str) -> Vec<(String, bool)> {
    let bytes = code.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'/' if bytes.get(i + 1) == Some(&b'/') => {
                i = code[i..].find('\n').map_or(bytes.len(), |n| i + n);
            }
            b'/' if bytes.get(i + 1) == Some(&b'*') => {
                i = code[i..].find("*/").map_or(bytes.len(), |n| i + n + 2);
            }
            b'\'' => {
                // A character literal ('"', '\''), or a lifetime ('a).
                if bytes.get(i + 1) == Some(&b'\\') {
                    i = code[i + 3..]
                        .find('\'')
                        .map_or(bytes.len(), |n| i + 3 + n + 1);
                } else if bytes.get(i + 2) == Some(&b'\'') {
                    i += 3;
                } else {
                    i += 1;
                }
            }
            b'r' if code[i..].starts_with("r#\"") || code[i..].starts_with("r\"") => {
                let hashes = code[i + 1..].bytes().take_while(|b| *b == b'#').count();
                let close = format!("\"{}", "#".repeat(hashes));
                let start = i + 2 + hashes;
                i = code[start..]
                    .find(&close)
                    .map_or(bytes.len(), |n| start + n + close.len());
            }
            b'"' => {
                let start = i + 1;
                let mut j = start;
                while j < bytes.len() && bytes[j] != b'"' {
                    j += if bytes[j] == b'\\' { 2 } else { 1 };
                }
                let text = &code[start..j.min(bytes.len())];
                let name_like = text.len() >= 3
                    && text.starts_with(|c: char| c.is_ascii_uppercase())
                    && text
                        .chars()
                        .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_');
                if name_like {
                    out.push((text.to_owned(), read_by_a_reader(&code[..i])));
                }
                i = j + 1;
            }
            _ => i += 1,
        }
    }
    out
}

/// `before` ends with `reader(` or `reader::<T>(`, white space allowed before the literal.
fn read_by_a_reader(before: &str) -> bool {
    let Some(call) = before.trim_end().strip_suffix('(') else {
        return false;
    };
    let call = match call.strip_suffix('>') {
        Some(generic) => generic.rfind("::<").map_or(generic, |at| &generic[..at]),
        None => call,
    };
    READERS.iter().any(|reader| {
        call.strip_suffix(reader)
            .is_some_and(|head| !head.ends_with(|c: char| c.is_alphanumeric() || c == '_'))
    })
}

#[test]
fn the_table_of_settings_is_what_the_code_reads() {
    let root = workspace();
    let service_client = root.join("nodes/service-client").canonicalize().unwrap();
    let mut problems = Vec::new();
    for (program, listed) in PROGRAM_SETTINGS {
        let (own, packages) = program_packages(program);
        let mut read = BTreeSet::new();
        let mut standing = BTreeSet::new();
        for package in &packages {
            let judged = !PART_OF_A_LIBRARY.contains(program) || *package == own;
            for code in sources(package) {
                for (name, is_read) in literals(&code) {
                    // A model service's settings are read under the program's prefix
                    // (`LLM_` + `BASE_URL`).
                    let name = match *package == service_client {
                        true => listed
                            .iter()
                            .find(|l| l.ends_with(&format!("_{name}")))
                            .map_or(name, |l| (*l).to_owned()),
                        false => name,
                    };
                    if is_read && judged && !name.starts_with("DORA_") {
                        read.insert(name.clone());
                    }
                    standing.insert(name);
                }
            }
        }
        let every_node = ["SESSIONS_ROOT", "SESSION_DIR", "SESSION_ID"];
        for name in &read {
            if !listed.contains(&name.as_str()) && !every_node.contains(&name.as_str()) {
                problems.push(format!("{program} reads {name}, not in the table"));
            }
        }
        for name in listed.iter() {
            if !standing.contains(*name) {
                problems.push(format!(
                    "{program}: {name} is in the table, not in its code"
                ));
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn a_reader_is_recognised_by_its_call() {
    assert!(read_by_a_reader("node_kit::env_opt("));
    assert!(read_by_a_reader("node_kit::env_parse::<u8>(\n            "));
    assert!(read_by_a_reader("secs("));
    assert!(!read_by_a_reader("claim(&dir, dataflow_id, "));
    assert!(!read_by_a_reader("my_var("));
    let found = literals(
        r#"let a = env_opt("A_B"); let q = '"'; // "E_F
        let b = "C_D \" x"; let c = "lower_x"; let e = "AB"; let d = secs("G_H");"#,
    );
    assert_eq!(found, [("A_B".to_owned(), true), ("G_H".to_owned(), true)]);
}
