//! Our ASR bridge fed by a node-hub-style microphone, our player fed by a node-hub-style
//! TTS node (dataflows/node-hub.yml): swapping either side is an edit of the YAML only.

use e2e_tests::{assert_one_voice_in_order, dora_run, jsonl, serial, session_dir};

#[test]
fn node_hub_style_microphone_and_tts_around_our_asr_and_player() {
    let _serial = serial();
    let dir = session_dir("node-hub");
    dora_run(
        "dataflows/node-hub.yml",
        25,
        &[("SESSION_DIR", dir.to_str().unwrap())],
    );
    let timeline = jsonl(&dir, "timeline.jsonl");
    assert_eq!(timeline.len(), 2, "{timeline:#?}");
    assert_one_voice_in_order(&timeline);
    // Heard by our ASR bridge from 16 kHz Float32 blocks without metadata, then voiced by
    // our player from the bare transcript.
    let heard = timeline[0]["text_played"].as_str().unwrap().to_lowercase();
    let keys = ["show", "derivative", "actual", "numbers"];
    let found = keys.iter().filter(|k| heard.contains(*k)).count();
    assert!(found >= 3, "only {found} of {keys:?} in {heard:?}");
    // The node-hub-style TTS node's audio (Float32 with sample_rate), played as it came:
    // a sentence's worth of it, after the first voice.
    assert_eq!(timeline[1]["speaker"], "hub");
    let spoken =
        timeline[1]["end_ms"].as_u64().unwrap() - timeline[1]["start_ms"].as_u64().unwrap();
    assert!(spoken > 1_000, "{spoken} ms: {timeline:#?}");
    assert!(dir.join("conversation.wav").is_file());
}
