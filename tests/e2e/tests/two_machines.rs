//! voice-chat split across two machines (dora's `deploy: machine:`): one coordinator and
//! two daemons with different machine ids on this host, talking over loopback only.

use std::{
    path::Path,
    process::{Child, Command, Stdio},
    time::{Duration, Instant},
};

use e2e_tests::{
    assert_voice_chat_session, dora, free_port, outside_cargo_test, repo_root, run_with_limit,
    serial, session_dir, voice_chat_heard_enough,
};
use serde_yaml::Value;

const SPLIT: &str = "dataflows/voice-chat-two-machines.yml";

fn nodes(path: &str) -> Vec<Value> {
    let text = std::fs::read_to_string(repo_root().join(path)).unwrap();
    let doc: Value = serde_yaml::from_str(&text).unwrap();
    doc["nodes"].as_sequence().unwrap().clone()
}

/// The split file is voice-chat.yml plus a `deploy:` per node, nothing else: edits to
/// one must reach the other.
#[test]
fn the_split_dataflow_is_voice_chat_with_machines() {
    let single = nodes("dataflows/voice-chat.yml");
    let mut split = nodes(SPLIT);
    let mut machines = Vec::new();
    for node in &mut split {
        let map = node.as_mapping_mut().unwrap();
        let deploy = map
            .remove("deploy")
            .unwrap_or_else(|| panic!("a node without deploy: {map:?}"));
        assert_eq!(deploy["working_dir"], "../../dataflows");
        machines.push((
            map["id"].as_str().unwrap().to_owned(),
            deploy["machine"].as_str().unwrap().to_owned(),
        ));
    }
    assert_eq!(split, single, "{SPLIT} drifted from voice-chat.yml");
    for (node, machine) in machines {
        let expected = match node.as_str() {
            "model-host" | "tutor" | "student1" | "student2" | "asr" => "models",
            _ => "audio",
        };
        assert_eq!(machine, expected, "{node}");
    }
}

/// A dora process of the test (coordinator, daemon), killed when the test ends.
struct Background(Child);

impl Drop for Background {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn background(args: &[&str], log: &Path) -> Background {
    let log = std::fs::File::create(log).unwrap();
    Background(
        outside_cargo_test(&mut Command::new(dora()))
            .current_dir(repo_root())
            .args(args)
            // The nodes a daemon spawns inherit these: the single-daemon run's pace.
            .env("OFFLINE_WORD_DELAY_MS", "30")
            .env("ESPEAK_SPEED", "320")
            .envs(e2e_tests::PLUMBING_VOICES.iter().copied())
            .stdin(Stdio::null())
            .stdout(log.try_clone().unwrap())
            .stderr(log)
            .spawn()
            .expect("dora starts"),
    )
}

#[test]
fn voice_chat_across_two_daemons() {
    let _serial = serial();
    // One cargo build up front, so the daemons' builds below find it done (ten
    // `cargo build`s, one per node, each waiting on the shared target folder otherwise).
    e2e_tests::build_workspace();
    let dir = session_dir("two-machines");
    let logs = session_dir("two-machines-logs");
    std::fs::create_dir_all(&logs).unwrap();
    let coordinator_port = free_port().to_string();
    let (audio_zenoh, models_zenoh) = (free_port(), free_port());
    let _coordinator = background(
        &[
            "coordinator",
            "--port",
            &coordinator_port,
            "--store",
            "memory",
        ],
        &logs.join("coordinator.log"),
    );
    let daemon = |machine: &str, listen: u16, peer: u16| {
        background(
            &[
                "daemon",
                "--machine-id",
                machine,
                "--coordinator-port",
                &coordinator_port,
                "--local-listen-port",
                &free_port().to_string(),
                // Loopback, no multicast: each daemon listens on a known port and dials
                // the other.
                "--zenoh-listen",
                &format!("127.0.0.1:{listen}"),
                "--zenoh-connect",
                &format!("tcp/127.0.0.1:{peer}"),
            ],
            &logs.join(format!("daemon-{machine}.log")),
        )
    };
    let _audio = daemon("audio", audio_zenoh, models_zenoh);
    let _models = daemon("models", models_zenoh, audio_zenoh);
    let cli = |args: &[&str], limit: u64| {
        let mut command = Command::new(dora());
        command
            .current_dir(repo_root())
            .args(args)
            .args(["--coordinator-port", &coordinator_port])
            // Expanded by the CLI: keep the console off any other run's port.
            .env("CONSOLE_PORT", free_port().to_string());
        run_with_limit(&mut command, Duration::from_secs(limit))
    };

    // Both daemons registered (the coordinator refuses a start naming a missing machine).
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let status = cli(&["cluster", "status"], 30);
        let text = String::from_utf8_lossy(&status.stdout);
        if text.contains("audio-") && text.contains("models-") {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "daemons never registered: {text}"
        );
        std::thread::sleep(Duration::from_millis(500));
    }
    // The documented distributed build: each daemon runs its nodes' `build:` from its
    // clone (here both share this one; `working_dir` leads each to `dataflows/`).
    let build = cli(&["build", SPLIT], 1800);
    assert!(
        build.status.success(),
        "dora build: {}\n{}",
        String::from_utf8_lossy(&build.stdout),
        String::from_utf8_lossy(&build.stderr)
    );
    // `--env` reaches what the nodes read from their environment (SESSION_DIR); a
    // node-level `${VAR:-default}` of the YAML is expanded by the CLI from its own
    // environment, which `--env` does not change: the run has the shipped model and
    // voices, as the single-daemon run does.
    let session = format!("SESSION_DIR={}", dir.display());
    let name = format!("two-machines-{}", std::process::id());
    let start = cli(
        &[
            "start", SPLIT, "--name", &name, "--detach", "--env", &session,
        ],
        120,
    );
    assert!(
        start.status.success(),
        "dora start: {}",
        String::from_utf8_lossy(&start.stderr)
    );
    // Until the human's barge-in was answered and as many lines were heard as the
    // single-daemon run asks for (or a generous limit), then stop it as a user does.
    let deadline = Instant::now() + Duration::from_secs(300);
    loop {
        if voice_chat_heard_enough(&dir) || Instant::now() > deadline {
            break;
        }
        std::thread::sleep(Duration::from_millis(500));
    }
    let stop = cli(&["stop", &name, "--grace-duration", "10s"], 60);
    assert!(
        stop.status.success(),
        "dora stop: {}",
        String::from_utf8_lossy(&stop.stderr)
    );

    // The same session folder as the single-daemon run: the very checks of dataflows.rs.
    assert_voice_chat_session(&dir);
}
