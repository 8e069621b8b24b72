//! What the tables' tests share: the workspace's packages and their code.

use std::{
    collections::BTreeSet,
    path::{Path, PathBuf},
};

pub fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The package folders of `package` and of every workspace package it depends on.
pub fn closure(package: &Path, into: &mut BTreeSet<PathBuf>) {
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
pub fn sources(package: &Path) -> Vec<String> {
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

/// The package folder of `program` (a node's binary) and those of the workspace packages
/// it depends on.
pub fn program_packages(program: &str) -> (PathBuf, BTreeSet<PathBuf>) {
    let own = workspace().join("nodes").join(program);
    assert!(own.join("Cargo.toml").exists(), "no package for {program}");
    let mut packages = BTreeSet::new();
    closure(&own, &mut packages);
    (own.canonicalize().unwrap(), packages)
}
