//! This package links the recognizer (asr-bridge): its binaries and tests find
//! CTranslate2's prebuilt library through their run path.

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    ctranslate2_run_path::emit();
}
