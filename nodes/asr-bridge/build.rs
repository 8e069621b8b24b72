//! With `prebuilt-ctranslate2` (the default), checks that setup.sh has put CTranslate2's
//! library in place and records its folder in the run path of this package's binaries.

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    let prebuilt = std::env::var_os("CARGO_FEATURE_PREBUILT_CTRANSLATE2").is_some();
    let from_source = std::env::var_os("CARGO_FEATURE_CTRANSLATE2_FROM_SOURCE").is_some();
    if prebuilt && from_source {
        panic!(
            "asr-bridge: choose one of the features prebuilt-ctranslate2 and \
             ctranslate2-from-source as the default in nodes/asr-bridge/Cargo.toml"
        );
    }
    if !prebuilt {
        return;
    }
    let library = ctranslate2_run_path::library_dir().join("libctranslate2.so");
    println!("cargo:rerun-if-changed={}", library.display());
    if !library.exists() {
        panic!(
            "asr-bridge: {} is missing: run scripts/setup.sh, which takes CTranslate2's \
             library out of its PyPI wheel, or make ctranslate2-from-source the default feature \
             in nodes/asr-bridge/Cargo.toml to compile it",
            library.display()
        );
    }
    ctranslate2_run_path::emit();
}
