//! The table of each program's settings says what the sources read: every name a
//! program's code (its package and the workspace packages it depends on) reads through
//! `env_opt("…")`, `env_parse("…", …)`, `env_secs`, `env_flag` or `std::env::var` is in
//! the table, and every name in the table stands in that code.

use std::{
    collections::BTreeSet,
    path::{Path, PathBuf},
};

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

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The package folders of `package` and of every workspace package it depends on.
fn closure(package: &Path, into: &mut BTreeSet<PathBuf>) {
    let Ok(package) = package.canonicalize() else {
        return;
    };
    if !into.insert(package.clone()) {
        return;
    }
    let manifest = std::fs::read_to_string(package.join("Cargo.toml")).unwrap();
    let mut in_dependencies = false;
    for line in manifest.lines() {
        if line.starts_with('[') {
            in_dependencies = line.trim() == "[dependencies]";
            continue;
        }
        if !in_dependencies {
            continue;
        }
        if let Some(at) = line.find("path = \"") {
            let rest = &line[at + 8..];
            let path = &rest[..rest.find('"').unwrap()];
            closure(&package.join(path), into);
        }
    }
}

/// The code of a package's `src`, tests left out.
fn sources(package: &Path) -> Vec<String> {
    let mut out = Vec::new();
    let mut folders = vec![package.join("src")];
    while let Some(folder) = folders.pop() {
        let Ok(entries) = std::fs::read_dir(&folder) else {
            continue;
        };
        for entry in entries {
            let path = entry.unwrap().path();
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            if path.is_dir() {
                if name != "tests" {
                    folders.push(path);
                }
            } else if name.ends_with(".rs") && name != "tests.rs" {
                let text = std::fs::read_to_string(&path).unwrap();
                let code = text.split("#[cfg(test)]").next().unwrap_or_default();
                out.push(code.to_owned());
            }
        }
    }
    out
}

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
        let own = root.join("nodes").join(program);
        assert!(own.join("Cargo.toml").exists(), "no package for {program}");
        let mut packages = BTreeSet::new();
        closure(&own, &mut packages);
        let own = own.canonicalize().unwrap();
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
