//! The microphone node with a stand-in capture command (no sound card needed).

use std::{path::Path, time::Duration};

use node_kit::testing::{input, meta, run_node, stop};
use serde_json::json;

const BIN: &str = env!("CARGO_BIN_EXE_microphone");

#[test]
fn streams_blocks_of_the_capture_command() {
    // 0.1 s of a constant level at 16 kHz: 5 blocks of 20 ms.
    let raw = std::env::temp_dir().join(format!("mic-{}.raw", std::process::id()));
    let sample = (16_384i16).to_le_bytes();
    std::fs::write(&raw, sample.repeat(1600)).unwrap();
    let events = (0..20)
        .map(|i| input(0.02 * f64::from(i), "tick", json!(null), meta(&[])))
        .chain([stop(0.5)])
        .collect();
    let run = run_node(
        Path::new(BIN),
        &[("MIC_COMMAND", &format!("cat {}", raw.display()))],
        events,
        Duration::from_secs(30),
    );
    assert!(run.success, "{}", run.stderr);
    let blocks: Vec<&serde_json::Value> =
        run.outputs.iter().filter(|o| o["id"] == "audio").collect();
    assert_eq!(blocks.len(), 5, "{}", run.stderr);
    assert_eq!(blocks[0]["data"].as_array().unwrap().len(), 320);
    assert_eq!(blocks[0]["data"][0], 0.5);
}

#[test]
fn a_missing_device_is_a_clear_error() {
    let run = run_node(
        Path::new(BIN),
        &[("MIC_COMMAND", "echo 'no such device' >&2; exit 1")],
        vec![stop(0.5)],
        Duration::from_secs(30),
    );
    assert!(!run.success);
    assert!(
        run.stderr.contains("no such device") && run.stderr.contains("MIC_COMMAND"),
        "{}",
        run.stderr
    );
}

/// Without `MIC_COMMAND` the default capture device is used; a machine without a sound
/// card (a server, CI) says so and names the way out. Only Linux tells a machine without
/// one apart before asking the device (`/proc/asound/cards`, behind the node's own
/// probe); elsewhere the node would open the default input and really listen.
#[test]
fn no_sound_card_and_no_command_is_a_clear_error() {
    if sound_device::has_sound_card() {
        return; // a machine with a sound card would really listen
    }
    let run = run_node(
        Path::new(BIN),
        &[],
        vec![stop(0.5)],
        Duration::from_secs(30),
    );
    assert!(!run.success);
    assert!(run.stderr.contains("MIC_COMMAND"), "{}", run.stderr);
    assert!(!run.stderr.contains("ALSA lib"), "{}", run.stderr);
}
