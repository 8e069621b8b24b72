//! Crash recovery in a real `dora run` of dataflows/voice-chat.yml: a student's bridge,
//! then the player, then the recorder are killed with SIGKILL while the conversation
//! runs. dora's restart policy brings each back; the conversation goes on, the session
//! files stay valid and complete, and the session still freezes with a manifest that
//! verifies.
//!
//! Linux only: the node processes are found by their `/proc/<pid>/exe` and `environ`, and
//! killed with `kill -9`.
#![cfg(target_os = "linux")]

use std::{
    path::PathBuf,
    process::{Child, Command, Stdio},
    time::{Duration, Instant},
};

use e2e_tests::{
    assert_frozen_context, assert_question_ids_increase, build_workspace, dora, jsonl_so_far,
    outside_cargo_test, repo_root, serial, session_dir, speaker, wav_duration,
};
use serde_json::Value;

/// Ends the dataflow if the test gives up early.
struct Running(Child);

impl Drop for Running {
    fn drop(&mut self) {
        if matches!(self.0.try_wait(), Ok(None)) {
            let _ = self.0.kill();
            let _ = self.0.wait();
        }
    }
}

fn agent_count(lines: &[Value]) -> usize {
    lines.iter().filter(|l| l["human"] != true).count()
}

/// The processes running `binary` with every one of `markers` exactly as a variable of
/// their environment (e.g. `PERSONA=../templates/student1/persona.md`, and this run's
/// `SESSION_DIR`, which keeps any other run on the machine out).
fn node_pids(binary: &str, markers: &[&str]) -> Vec<u32> {
    let mut pids = Vec::new();
    for entry in std::fs::read_dir("/proc").into_iter().flatten().flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<u32>() else {
            continue;
        };
        let exe = std::fs::read_link(entry.path().join("exe")).unwrap_or_default();
        if exe.file_name().and_then(|n| n.to_str()) != Some(binary) {
            continue;
        }
        // Variables exactly (dora also hands every node the whole dataflow).
        let environ = std::fs::read(entry.path().join("environ")).unwrap_or_default();
        let has = |marker: &&str| {
            environ
                .split(|b| *b == 0)
                .any(|var| String::from_utf8_lossy(var) == *marker)
        };
        if !markers.iter().all(has) {
            continue;
        }
        pids.push(pid);
    }
    pids
}

fn kill9(what: &str, binary: &str, markers: &[&str]) {
    let pids = node_pids(binary, markers);
    assert_eq!(pids.len(), 1, "one {what} process, found {pids:?}");
    let status = Command::new("kill")
        .args(["-9", &pids[0].to_string()])
        .status()
        .expect("kill runs");
    assert!(status.success(), "kill -9 {what}");
    eprintln!("killed {what} (pid {})", pids[0]);
}

fn wait_until(what: &str, limit: Duration, mut done: impl FnMut() -> bool) {
    let start = Instant::now();
    while !done() {
        assert!(start.elapsed() < limit, "gave up waiting for {what}");
        std::thread::sleep(Duration::from_millis(100));
    }
}

#[test]
fn killed_nodes_come_back_and_the_session_stays_whole() {
    let _serial = serial();
    build_workspace();
    let dir: PathBuf = session_dir("recovery");
    let transcript_path = dir.join("transcript.jsonl");
    let log = std::env::temp_dir().join(format!("e2e-recovery-{}.log", std::process::id()));
    let child = outside_cargo_test(&mut Command::new(dora()))
        .current_dir(repo_root())
        .args(["run", "dataflows/voice-chat.yml", "--stop-after", "150s"])
        .env("SESSION_DIR", &dir)
        .env("LLM_BACKEND", "scripted")
        .env("OFFLINE_WORD_DELAY_MS", "90")
        .env("ESPEAK_SPEED", "260")
        .envs(e2e_tests::PLUMBING_VOICES.iter().copied())
        .env("AUDIO_OUTPUT", "none")
        // A turn lost with its bridge is given up within this.
        .env("TURN_TIMEOUT_SECS", "20")
        .env("CONSOLE_PORT", "0")
        // The segmenter logs each sentence it hands the player (`last=true`: the turn's
        // end); the bridges log each turn they start generating.
        .env("RUST_LOG", "info,zenoh=error,text_segmenter=debug")
        .stdin(Stdio::null())
        .stdout(std::fs::File::create(&log).expect("log file"))
        .stderr(Stdio::null())
        .spawn()
        .expect("dora run starts");
    let mut run = Running(child);
    // Every node of this run has it in its environment.
    let this_run = format!("SESSION_DIR={}", dir.display());
    let minute = Duration::from_secs(60);
    let heard_since = |n: usize| {
        let path = transcript_path.clone();
        move || agent_count(&jsonl_so_far(&path)) >= n
    };

    // 1. A student's bridge, mid-sentence: it is generating its turn (its log says so)
    // and the turn's last sentence has not reached the segmenter, so the player; a turn
    // already complete when looked at is let go and the next one of student1 waited for.
    wait_until("two agent lines", minute * 2, heard_since(2));
    let events = dir.join("events.jsonl");
    wait_until("student1 streaming its turn", minute * 2, || {
        let Some(turn) = jsonl_so_far(&events)
            .iter()
            .rev()
            .find(|e| e["event"] == "turn" && e["speaker"] == "student1")
            .and_then(|e| e["question_id"].as_u64())
        else {
            return false;
        };
        let log_text = std::fs::read_to_string(&log).unwrap_or_default();
        let generating = format!("generating question_id={turn}");
        let started = log_text
            .lines()
            .any(|line| line.contains("student1:") && line.trim_end().ends_with(&generating));
        let finished = log_text.lines().any(|line| {
            line.contains("speaker=student1")
                && line.contains(&format!("question_id={turn} "))
                && line.contains("last=true")
        });
        started && !finished
    });
    kill9(
        "student1's bridge",
        "llm-bridge",
        &["PERSONA=../templates/student1/persona.md", &this_run],
    );
    let before_bridge = jsonl_so_far(&transcript_path);
    let n = agent_count(&before_bridge);
    wait_until("two more agent lines", minute, heard_since(n + 2));
    wait_until("student1 speaking again", minute * 2, || {
        jsonl_so_far(&transcript_path)[before_bridge.len()..]
            .iter()
            .any(|l| speaker(l) == "student1")
    });

    // 2. The player, mid-conversation.
    let before_player = jsonl_so_far(&transcript_path);
    kill9("the player", "tts-player", &[&this_run]);
    let n = agent_count(&before_player);
    wait_until(
        "two agent lines after the player's restart",
        minute,
        heard_since(n + 2),
    );

    // 3. The recorder.
    let before_recorder = jsonl_so_far(&transcript_path);
    kill9("the recorder", "session-recorder", &[&this_run]);
    let n = agent_count(&before_recorder);
    wait_until(
        "two agent lines after the recorder's restart",
        minute,
        heard_since(n + 2),
    );

    let status = e2e_tests::wait_for_exit(&mut run.0, Duration::from_secs(400));
    let log_text = std::fs::read_to_string(&log).unwrap_or_default();
    // The killed nodes fail once each (that is the point); the run itself must end.
    eprintln!("dora run ended: {status}");

    // Valid JSONL, every line heard before each kill present exactly once, in order.
    let transcript = e2e_tests::jsonl(&dir, "transcript.jsonl");
    for before in [&before_bridge, &before_player, &before_recorder] {
        for line in before.iter() {
            let copies = transcript.iter().filter(|l| *l == line).count();
            assert_eq!(copies, 1, "{line} appears {copies} times\n{log_text}");
        }
    }
    assert_question_ids_increase(&transcript);
    // The recording went on after the player's restart: its timeline too.
    // The player's own lines (the human's are on the timeline too).
    let timeline: Vec<_> = e2e_tests::jsonl(&dir, "timeline.jsonl")
        .into_iter()
        .filter(|r| r["human"] != true)
        .collect();
    let last_before = before_player
        .iter()
        .filter_map(|l| l["question_id"].as_u64())
        .max()
        .unwrap_or(0);
    assert!(
        timeline
            .iter()
            .any(|r| r["question_id"].as_u64() > Some(last_before)),
        "nothing played after the player's restart"
    );
    let wav = wav_duration(&dir.join("conversation.wav"));
    let end_ms = timeline
        .iter()
        .filter_map(|r| r["end_ms"].as_u64())
        .max()
        .unwrap_or(0);
    assert!(
        wav + Duration::from_secs(1) >= Duration::from_millis(end_ms),
        "conversation.wav ({wav:?}) ends before the timeline ({end_ms} ms)"
    );
    // One context session, frozen, its manifest verifying, its history the transcript.
    assert!(
        !dir.join("context-2").exists(),
        "the restarted recorder split the context session"
    );
    assert_frozen_context(&dir, &transcript);
}
