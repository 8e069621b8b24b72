//! A package whose binaries or tests link ct2rs calls [`emit`] from its build script.
//!
//! With the `prebuilt-ctranslate2` feature of asr-bridge (the default), the recognizer
//! links the `libctranslate2` that setup.sh takes out of the `ctranslate2` wheel into
//! models/ctranslate2/. A build script's link arguments apply to its own package only,
//! so each package that links it records the folder in its binaries' run path; the
//! library then finds its own libgomp beside it through its `$ORIGIN`.

use std::path::{Path, PathBuf};

/// The folder holding the library: models/ctranslate2 at the workspace root (the
/// nearest folder above the calling package that holds Cargo.lock), where
/// .cargo/config.toml points the linker too.
pub fn library_dir() -> PathBuf {
    let manifest = PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").unwrap_or_default());
    workspace_root(&manifest).join("models/ctranslate2")
}

fn workspace_root(manifest: &Path) -> PathBuf {
    manifest
        .ancestors()
        .find(|dir| dir.join("Cargo.lock").exists())
        .unwrap_or(manifest)
        .to_path_buf()
}

/// Prints the run path for this package's binaries, tests and examples. Harmless when
/// the library is built from source (the folder is then never searched).
pub fn emit() {
    let dir = library_dir();
    let dir = dir.canonicalize().unwrap_or(dir);
    println!("cargo:rustc-link-arg=-Wl,-rpath,{}", dir.display());
}
