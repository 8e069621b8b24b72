//! Every shipped dataflow is wired completely.

#[test]
fn every_shipped_dataflow_passes() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../dataflows");
    let mut checked = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        let hidden = path
            .file_name()
            .is_some_and(|n| n.to_string_lossy().starts_with('.'));
        if hidden || path.extension().is_none_or(|e| e != "yml") {
            continue;
        }
        let yaml = std::fs::read_to_string(&path).unwrap();
        let findings = dataflow_wiring::check(&yaml).unwrap();
        assert!(
            findings.is_empty(),
            "{}:\n{}",
            path.display(),
            findings
                .iter()
                .map(ToString::to_string)
                .collect::<Vec<_>>()
                .join("\n")
        );
        checked += 1;
    }
    assert!(checked >= 8, "only {checked} dataflows found");
}
