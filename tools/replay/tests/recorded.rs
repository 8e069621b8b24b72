//! Sessions of every format, recorded with the scripted stand-ins (`tests/recorded/*`,
//! their decision logs only), replay to the decisions they were recorded with: a change
//! to a core or to the node loops that alters one decision shows here, with the input
//! where it first differs.

use std::path::Path;

#[test]
fn every_recorded_format_replays_identically() {
    let sessions = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/recorded");
    let mut formats = Vec::new();
    for entry in std::fs::read_dir(&sessions).expect("the recorded sessions") {
        let dir = entry.unwrap().path();
        let replays = replay::replay_session(&dir, None, &[])
            .unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
        for node in &replays {
            for segment in &node.segments {
                assert!(
                    segment.decisions > 0,
                    "{}: {} replayed nothing",
                    dir.display(),
                    node.node
                );
                assert!(
                    segment.first_difference.is_none(),
                    "{}: {} decided otherwise: {:#?}",
                    dir.display(),
                    node.node,
                    segment.first_difference
                );
            }
            formats.push(node.format.clone());
        }
    }
    formats.sort();
    formats.dedup();
    // The controller (voice chat, debate), the roundtable, the rehearsal, the auction.
    assert_eq!(formats.len(), 4, "{formats:?}");
}
