//! Present so that the build-dependencies (the host-side pins) are part of the build.
fn main() {}
