//! `cargo build --workspace` and `cargo test --workspace` must compile every shared crate
//! with the same features; otherwise the test build recompiles most of the tree (llama.cpp
//! included) and overwrites the dataflows' binaries with other builds of themselves.

use std::collections::{BTreeMap, BTreeSet};
use std::process::Command;

/// `name version` → every feature list `cargo tree` shows it with, for these edge kinds.
fn feature_sets(edges: &str) -> BTreeMap<String, BTreeSet<String>> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let output = Command::new(cargo)
        .args([
            "tree",
            "--workspace",
            "--locked",
            "--offline",
            "--prefix",
            "none",
        ])
        .args(["-e", edges, "-f", "{p}|{f}"])
        .current_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/.."))
        .output()
        .expect("cargo tree runs");
    assert!(
        output.status.success(),
        "cargo tree -e {edges}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    let mut sets: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for line in String::from_utf8_lossy(&output.stdout).lines() {
        let Some((package, features)) = line.split_once('|') else {
            continue;
        };
        // `name vX.Y.Z (path or "proc-macro")`: the name and version identify it.
        let id: Vec<&str> = package.split_whitespace().take(2).collect();
        let features = features.trim_end_matches(" (*)").to_owned();
        sets.entry(id.join(" ")).or_default().insert(features);
    }
    sets
}

#[test]
fn the_build_and_the_tests_compile_shared_crates_with_the_same_features() {
    let build = feature_sets("normal,build");
    let test = feature_sets("normal,build,dev");
    let parted: Vec<String> = build
        .iter()
        .filter_map(|(id, features)| {
            let in_test = test.get(id)?;
            (in_test != features).then(|| format!("{id}: build {features:?}, test {in_test:?}"))
        })
        .collect();
    assert!(
        parted.is_empty(),
        "pin these features in feature-pins/Cargo.toml:\n{}",
        parted.join("\n")
    );
}
