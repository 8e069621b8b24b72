//! The dataflows users run, through the real dora CLI, asserting on what they produced.

use std::{process::Command, time::Duration};

use e2e_tests::{
    agent_lines, assert_conversation_quality, assert_frozen_context, assert_no_back_to_back,
    assert_question_ids_increase, assert_replays_identically, assert_voice_chat_session, dora,
    dora_run_as_shipped_until, dora_run_until, jsonl, jsonl_so_far, repo_root, run_with_limit,
    serial, session_dir, small_model, speaker, voice_chat_heard_enough,
};

#[test]
fn voice_chat_study_session_with_a_human_barge_in() {
    let _serial = serial();
    let dir = session_dir("voice-chat");
    // The default model and voices (Kokoro, the human's too): slower than the plumbing
    // tests' (below), so a longer run.
    // It runs until the scripted human was answered and enough lines were heard (at
    // most 300 s): on two slow cores with the neural voice that is about two minutes.
    dora_run_as_shipped_until(
        "dataflows/voice-chat.yml",
        300,
        &[("SESSION_DIR", dir.to_str().unwrap())],
        voice_chat_heard_enough,
    );
    // The checks the two-daemon run (two_machines.rs) shares.
    assert_voice_chat_session(&dir);
    // What was said, as a listener follows it (the embedded model, seeded).
    assert_conversation_quality(&dir, "dataflows/agendas/voice-chat.yml");
}

#[test]
fn debate_judge_answers_every_argument() {
    let _serial = serial();
    let dir = session_dir("debate");
    dora_run_until(
        "dataflows/debate.yml",
        180,
        &[
            ("SESSION_DIR", dir.to_str().unwrap()),
            ("OFFLINE_WORD_DELAY_MS", "20"),
            ("ESPEAK_SPEED", "400"),
            ("LLM_MODEL_PATH", &small_model()),
        ],
        |dir| jsonl_so_far(&dir.join("transcript.jsonl")).len() >= 6,
    );
    let transcript = jsonl(&dir, "transcript.jsonl");
    assert!(transcript.len() >= 6, "{transcript:#?}");
    // The policy is judged on the turns handed out: a turn the model answers with no
    // words leaves no transcript line, but the judge still had the floor after the
    // argument.
    // A turn sent again (its speaker slow to its first words) is one turn.
    let mut handed: Vec<(u64, String)> = jsonl(&dir, "events.jsonl")
        .iter()
        .filter(|e| e["event"] == "turn")
        .map(|e| {
            let speaker = e["speaker"].as_str().unwrap_or_default().to_owned();
            (e["question_id"].as_u64().unwrap_or_default(), speaker)
        })
        .collect();
    handed.dedup_by_key(|(question_id, _)| *question_id);
    let turns: Vec<String> = handed.into_iter().map(|(_, speaker)| speaker).collect();
    assert!(turns.len() >= 6, "{turns:?}");
    assert_ne!(turns[0], "judge", "cold start skips the priority judge");
    for (i, turn) in turns.iter().enumerate() {
        assert_eq!(turn == "judge", i % 2 == 1, "turn {i}: {turns:?}");
    }
    // Defense and prosecution alternate (equal ratios, balanced by words).
    let sides: Vec<&str> = transcript
        .iter()
        .map(speaker)
        .filter(|s| *s != "judge")
        .collect();
    assert!(
        sides.contains(&"defense") && sides.contains(&"prosecution"),
        "{sides:?}"
    );
    assert_question_ids_increase(&transcript);
    assert_frozen_context(&dir, &transcript);
    assert_replays_identically(&dir);
}

#[test]
fn panel_everyone_speaks_in_ratio_order() {
    let _serial = serial();
    let dir = session_dir("panel");
    // One model host serves the four panelists one step at a time (four bridges each
    // had a model and a core of their own before): the same lines take longer to come.
    dora_run_until(
        "dataflows/panel.yml",
        200,
        &[
            ("SESSION_DIR", dir.to_str().unwrap()),
            ("OFFLINE_WORD_DELAY_MS", "20"),
            ("LLM_MODEL_PATH", &small_model()),
        ],
        |dir| {
            let lines = jsonl_so_far(&dir.join("transcript.jsonl"));
            lines.len() >= 8
                && ["host", "expert1", "expert2", "guest"]
                    .iter()
                    .all(|name| lines.iter().any(|l| speaker(l) == *name))
        },
    );
    let transcript = jsonl(&dir, "transcript.jsonl");
    assert!(transcript.len() >= 8, "{transcript:#?}");
    for name in ["host", "expert1", "expert2", "guest"] {
        assert!(
            transcript.iter().any(|l| speaker(l) == name),
            "{name} never spoke: {transcript:#?}"
        );
    }
    assert_no_back_to_back(&transcript);
    assert_question_ids_increase(&transcript);
    assert_frozen_context(&dir, &transcript);
    assert_replays_identically(&dir);
}

#[test]
fn voice_chat_through_a_running_coordinator() {
    let _serial = serial();
    let dir = session_dir("voice-chat-start");
    let root = repo_root();
    let run = |args: &[&str], limit: u64| {
        let mut command = Command::new(dora());
        command.current_dir(&root).args(args);
        run_with_limit(&mut command, Duration::from_secs(limit))
    };
    e2e_tests::build_workspace();
    let up = run(&["up"], 60);
    assert!(
        up.status.success(),
        "dora up: {}",
        String::from_utf8_lossy(&up.stderr)
    );
    let result = std::panic::catch_unwind(|| {
        let build = run(&["build", "dataflows/voice-chat.yml"], 600);
        assert!(
            build.status.success(),
            "dora build: {}",
            String::from_utf8_lossy(&build.stderr)
        );
        // `--env` reaches what the nodes read from their environment (SESSION_DIR); the
        // YAML's node-level `${VAR:-default}` is expanded by the CLI from its own
        // environment: the shipped model and voices run.
        let session = format!("SESSION_DIR={}", dir.display());
        let start = run(
            &[
                "start",
                "dataflows/voice-chat.yml",
                "--name",
                "e2e-voice-chat",
                "--detach",
                "--env",
                &session,
            ],
            120,
        );
        assert!(
            start.status.success(),
            "dora start: {}",
            String::from_utf8_lossy(&start.stderr)
        );
        // Let the conversation run until two agents' lines are recorded (or give up after
        // a generous limit), then stop it the way a user does.
        let deadline = std::time::Instant::now() + Duration::from_secs(180);
        while agent_lines(&e2e_tests::jsonl_so_far(&dir.join("transcript.jsonl"))).len() < 2
            && std::time::Instant::now() < deadline
        {
            std::thread::sleep(Duration::from_millis(500));
        }
        let stop = run(&["stop", "e2e-voice-chat", "--grace-duration", "5s"], 60);
        assert!(
            stop.status.success(),
            "dora stop: {}",
            String::from_utf8_lossy(&stop.stderr)
        );
    });
    let _ = run(&["down"], 60);
    if let Err(panic) = result {
        std::panic::resume_unwind(panic);
    }
    let transcript = jsonl(&dir, "transcript.jsonl");
    assert!(agent_lines(&transcript).len() >= 2, "{transcript:#?}");
    assert!(speaker(&transcript[0]).starts_with("student"));
    assert_question_ids_increase(&transcript);
    assert_frozen_context(&dir, &transcript);
}
