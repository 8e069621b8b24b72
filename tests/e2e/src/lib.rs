//! Helpers for running the project's dataflows through the dora CLI in tests.

use std::{
    path::{Path, PathBuf},
    process::{Child, Command, ExitStatus, Output, Stdio},
    sync::{Mutex, MutexGuard},
    time::{Duration, Instant},
};

use serde_json::Value;

/// Dataflows share ports and machine time: run them one at a time.
static SERIAL: Mutex<()> = Mutex::new(());

pub fn serial() -> MutexGuard<'static, ()> {
    SERIAL
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

pub fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .canonicalize()
        .expect("repo root")
}

/// The dora CLI: `$DORA`, else the project's venv (scripts/setup.sh), else `dora` on PATH.
pub fn dora() -> PathBuf {
    if let Some(path) = std::env::var_os("DORA") {
        return PathBuf::from(path);
    }
    let venv = repo_root().join(".venv/bin/dora");
    if venv.exists() {
        return venv;
    }
    PathBuf::from("dora")
}

/// A fresh, empty folder for one test's session.
pub fn session_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("e2e-{name}-{}", std::process::id()));
    make_writable(&dir);
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

/// A frozen agent-context session is read-only; this lets it be removed.
pub fn make_writable(dir: &Path) {
    fn writable(path: &Path) {
        if let Ok(meta) = std::fs::metadata(path) {
            let mut p = meta.permissions();
            #[allow(clippy::permissions_set_readonly_false)]
            p.set_readonly(false);
            let _ = std::fs::set_permissions(path, p);
        }
    }
    writable(dir);
    if let Ok(entries) = std::fs::read_dir(dir) {
        for e in entries.flatten() {
            let path = e.path();
            if path.is_dir() {
                make_writable(&path);
            } else {
                writable(&path);
            }
        }
    }
}

/// Waits for a started `dora run` (or any child) to end by itself, at most `limit`.
pub fn wait_for_exit(child: &mut Child, limit: Duration) -> ExitStatus {
    let start = Instant::now();
    loop {
        if let Some(status) = child.try_wait().expect("wait") {
            return status;
        }
        assert!(
            start.elapsed() < limit,
            "the run did not end within {limit:?}"
        );
        std::thread::sleep(Duration::from_millis(200));
    }
}

/// Runs `command` with a hard limit; the child is killed if it overruns.
pub fn run_with_limit(command: &mut Command, limit: Duration) -> Output {
    run_with_limit_until(command, limit, || false)
}

/// [`run_with_limit`] that interrupts the command (SIGINT, as ctrl-c does) once `done`
/// holds, looked at every second, and then waits for it to finish.
fn run_with_limit_until(command: &mut Command, limit: Duration, done: impl Fn() -> bool) -> Output {
    let mut child = outside_cargo_test(command)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("cannot start {command:?}: {e} (run scripts/setup.sh first)"));
    let stdout = child.stdout.take().expect("stdout");
    let stderr = child.stderr.take().expect("stderr");
    let out_reader = std::thread::spawn(move || read_all(stdout));
    let err_reader = std::thread::spawn(move || read_all(stderr));
    let start = Instant::now();
    let mut looked = Instant::now();
    let mut interrupted = false;
    let status = loop {
        if let Some(status) = child.try_wait().expect("wait") {
            break status;
        }
        if !interrupted && looked.elapsed() >= Duration::from_secs(1) {
            looked = Instant::now();
            if done() {
                interrupted = true;
                let _ = Command::new("kill")
                    .args(["-INT", &child.id().to_string()])
                    .status();
            }
        }
        if start.elapsed() > limit {
            let _ = child.kill();
            break child.wait().expect("wait after kill");
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    Output {
        status,
        stdout: out_reader.join().unwrap_or_default(),
        stderr: err_reader.join().unwrap_or_default(),
    }
}

fn read_all(mut reader: impl std::io::Read) -> Vec<u8> {
    let mut buf = Vec::new();
    let _ = reader.read_to_end(&mut buf);
    buf
}

/// `command` without the variables `cargo test` sets for this test binary: a `cargo
/// build` under it (ours, a dataflow's `build:`, `scripts/setup.sh`) would otherwise see
/// another `CARGO_MANIFEST_DIR` than a user's, and a build script that watches it (ring's)
/// would rebuild everything above it (TLS, zenoh, dora, every node) twice per run.
pub fn outside_cargo_test(command: &mut Command) -> &mut Command {
    for (name, _) in std::env::vars_os() {
        let Some(name) = name.to_str() else { continue };
        let per_crate = name.starts_with("CARGO_PKG_")
            || [
                "CARGO_MANIFEST_DIR",
                "CARGO_MANIFEST_PATH",
                "CARGO_CRATE_NAME",
                "CARGO_PRIMARY_PACKAGE",
                "CARGO_TARGET_TMPDIR",
            ]
            .contains(&name);
        if per_crate {
            command.env_remove(name);
        }
    }
    command
}

/// Builds every binary up front: `dora run` runs each node's `build:` command first, and
/// a compile there would eat into `--stop-after`.
pub fn build_workspace() {
    let status = outside_cargo_test(&mut Command::new(env!("CARGO")))
        .current_dir(repo_root())
        .args(["build", "--release", "--workspace", "--quiet"])
        .status()
        .expect("cargo runs");
    assert!(status.success(), "cargo build --release --workspace failed");
}

/// The voices of the plumbing tests: espeak-ng, instant, for the player and the scripted
/// human (the dataflows default to the embedded Kokoro model, which the runs with real
/// models keep: [`dora_run_as_shipped`]).
pub const PLUMBING_VOICES: &[(&str, &str)] =
    &[("TTS_BACKEND", "espeak"), ("HUMAN_VOICE", "en-us+m7")];

/// `dora run <dataflow> --stop-after <secs>` from the repository root, with extra env,
/// spoken by [`PLUMBING_VOICES`].
pub fn dora_run(dataflow: &str, stop_after_secs: u64, env: &[(&str, &str)]) -> Output {
    dora_run_until(dataflow, stop_after_secs, env, |_| false)
}

/// `dora run <dataflow> --stop-after <secs>` with the dataflow's own voices, plus `env`.
pub fn dora_run_as_shipped(dataflow: &str, stop_after_secs: u64, env: &[(&str, &str)]) -> Output {
    dora_run_as_shipped_until(dataflow, stop_after_secs, env, |_| false)
}

/// [`dora_run`] that stops as soon as `done(session folder)` holds (looked at every
/// second), at the latest after `max_secs`: a run waits for what the test needs, not for
/// a time a faster machine would need (the session folder is `SESSION_DIR` of `env`).
pub fn dora_run_until(
    dataflow: &str,
    max_secs: u64,
    env: &[(&str, &str)],
    done: impl Fn(&Path) -> bool,
) -> Output {
    let mut all = PLUMBING_VOICES.to_vec();
    all.extend_from_slice(env);
    dora_run_as_shipped_until(dataflow, max_secs, &all, done)
}

/// [`dora_run_as_shipped`] that stops once `done(session folder)` holds: `dora run` gets
/// the interrupt a user's ctrl-c sends, and the nodes their stop event, as at
/// `--stop-after`, so every file of the session is written.
pub fn dora_run_as_shipped_until(
    dataflow: &str,
    max_secs: u64,
    env: &[(&str, &str)],
    done: impl Fn(&Path) -> bool,
) -> Output {
    build_workspace();
    let session = env
        .iter()
        .find(|(k, _)| *k == "SESSION_DIR")
        .map(|(_, v)| PathBuf::from(v));
    let mut command = Command::new(dora());
    command
        .current_dir(repo_root())
        .args(["run", dataflow, "--stop-after"])
        .arg(format!("{max_secs}s"));
    for (k, v) in env {
        command.env(k, v);
    }
    let output = run_with_limit_until(&mut command, Duration::from_secs(max_secs + 240), || {
        session.as_deref().is_some_and(&done)
    });
    assert!(
        output.status.success(),
        "dora run {dataflow} failed:\n{}\n{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    output
}

/// A voice-chat run has what [`assert_voice_chat_session`] looks at: the human was heard,
/// a line answered them, and at least [`VOICE_CHAT_AGENT_LINES`] participants' lines.
pub fn voice_chat_heard_enough(dir: &Path) -> bool {
    let transcript = jsonl_so_far(&dir.join("transcript.jsonl"));
    let answered = transcript
        .iter()
        .position(|l| l["human"] == true)
        .is_some_and(|human| transcript.len() > human + 1);
    answered && agent_lines(&transcript).len() >= VOICE_CHAT_AGENT_LINES
}

/// Reads a JSONL file of the session folder.
pub fn jsonl(dir: &Path, name: &str) -> Vec<Value> {
    let path = dir.join(name);
    std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()))
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("bad line {l:?}: {e}")))
        .collect()
}

/// The complete lines of a JSONL file a running dataflow is still writing: a missing
/// file is empty, a last line without its newline yet is left for later, and every
/// complete line must be JSON.
pub fn jsonl_so_far(path: &Path) -> Vec<Value> {
    let Ok(text) = std::fs::read_to_string(path) else {
        return Vec::new();
    };
    let complete = match text.rfind('\n') {
        Some(end) => &text[..=end],
        None => "",
    };
    complete
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("not JSON: {l:?}: {e}")))
        .collect()
}

/// A transcript line's speaker.
pub fn speaker(line: &Value) -> &str {
    line["speaker"].as_str().unwrap_or_default()
}

/// Transcript lines carry strictly increasing question ids.
pub fn assert_question_ids_increase(transcript: &[Value]) {
    let ids: Vec<u64> = transcript
        .iter()
        .map(|l| l["question_id"].as_u64().unwrap())
        .collect();
    assert!(
        ids.windows(2).all(|w| w[0] < w[1]),
        "question ids not increasing: {ids:?}"
    );
}

/// Timeline records never overlap and sound in question-id order: one voice at a time.
pub fn assert_one_voice_in_order(timeline: &[Value]) {
    for pair in timeline.windows(2) {
        assert!(
            pair[1]["start_ms"].as_u64() >= pair[0]["end_ms"].as_u64(),
            "overlap: {pair:?}"
        );
        assert!(
            pair[1]["question_id"].as_u64() > pair[0]["question_id"].as_u64(),
            "{pair:?}"
        );
    }
}

/// A frozen context session: its `MANIFEST.sha256` exists and `sha256sum -c` accepts it.
pub fn assert_manifest_verifies(context: &Path) {
    assert!(
        context.join("MANIFEST.sha256").is_file(),
        "no frozen context in {}",
        context.display()
    );
    let verify = Command::new("sha256sum")
        .args(["-c", "--quiet", "MANIFEST.sha256"])
        .current_dir(context)
        .output()
        .expect("sha256sum runs");
    assert!(
        verify.status.success(),
        "{}",
        String::from_utf8_lossy(&verify.stdout)
    );
}

/// The conversation's agent-context session: frozen (its `MANIFEST.sha256` verifies),
/// one exchange-history line per transcript line, and each agent's own lines in its notes.
pub fn assert_frozen_context(dir: &Path, transcript: &[Value]) {
    let context = dir.join("context");
    assert_manifest_verifies(&context);
    let history = std::fs::read_to_string(context.join("shared/exchange-history.md")).unwrap();
    let entries = history.lines().filter(|l| l.starts_with("- [")).count();
    assert_eq!(entries, transcript.len(), "{history}");
    for line in transcript.iter().filter(|l| l["human"] != true) {
        let notes = context.join(speaker(line)).join("exchange-notes.md");
        let notes =
            std::fs::read_to_string(&notes).unwrap_or_else(|e| panic!("{}: {e}", notes.display()));
        let q = format!("(q{})", line["question_id"]);
        assert!(notes.contains(&q), "{q} not in {notes}");
    }
}

/// The participants' lines of a transcript (every line but the human's).
pub fn agent_lines(transcript: &[Value]) -> Vec<&Value> {
    transcript.iter().filter(|l| l["human"] != true).collect()
}

/// voice-chat's scripted human cut in by voice, Whisper heard the scripted words ("Sorry
/// to interrupt, can you show me a derivative with actual numbers?": most of its key
/// words, whatever one it missed) and the tutor answered first. Returns the index of the
/// human's first line in the transcript.
///
/// The human's words may stand on two lines: when the recognizer writes the opener as a
/// finished sentence ("All right, then interrupt." for "Sorry to interrupt,") and the
/// pause after the comma reaches the commit silence, that part is a turn, the reply to it
/// is cut off by the rest before a word of it is heard, and the rest is a line of its own.
/// What a listener hears is the same: the human's words, then the tutor's answer.
pub fn assert_human_heard_and_tutor_answered(transcript: &[Value]) -> usize {
    let human = transcript
        .iter()
        .position(|l| l["human"] == true)
        .unwrap_or_else(|| panic!("no human utterance: {transcript:#?}"));
    let unheard = |l: &Value| l["human"] != true && l["text_played"] == "";
    let said: Vec<&Value> = transcript[human..]
        .iter()
        .take_while(|l| l["human"] == true || unheard(l))
        .filter(|l| l["human"] == true)
        .collect();
    let lower = |l: &Value| l["text"].as_str().unwrap().to_lowercase();
    let heard = said.iter().map(|l| lower(l)).collect::<Vec<_>>().join(" ");
    let keys = ["sorry", "show", "derivative", "actual", "numbers"];
    let found = keys.iter().filter(|k| heard.contains(*k)).count();
    assert!(
        found >= 4,
        "only {found} of {keys:?} in the human's {heard:?}"
    );
    // The human hesitates after "a derivative with" (a pause longer than the one at which the
    // bridge looks at the words, shorter than the closing silence): not cut off there, the
    // words on both sides of the pause are one line.
    let last = lower(said.last().unwrap());
    assert!(
        ["show", "derivative"].iter().any(|k| last.contains(k))
            && ["actual", "numbers"].iter().any(|k| last.contains(k)),
        "the human was cut off at the hesitation: {said:#?}"
    );
    let answer = transcript[human..]
        .iter()
        .find(|l| l["human"] != true && !unheard(l))
        .unwrap_or_else(|| panic!("nobody answered: {transcript:#?}"));
    assert_eq!(speaker(answer), "tutor", "{transcript:#?}");
    human
}

/// Consecutive lines never come from one participant, except after an interrupted line
/// (an interrupted speaker may be handed the turn again after the human spoke). A human
/// is never handed the turn: two utterances in a row (a pause longer than the voice
/// detector's in the middle of what they say) are theirs to make.
pub fn assert_no_back_to_back(transcript: &[Value]) {
    for pair in transcript.windows(2) {
        if pair[0]["interrupted"] != true && pair[1]["human"] != true {
            assert_ne!(
                speaker(&pair[0]),
                speaker(&pair[1]),
                "back to back: {pair:?}"
            );
        }
    }
}

/// The human's side of a spoken session: the utterance heard (`said`, a transcript line)
/// is on the timeline, spoken (not typed) and timed on the recording's clock; `human.wav`
/// holds voice in that span and silence well before it; `mix.wav` is as long as the
/// longer side.
pub fn assert_human_recorded(dir: &Path, humans: &[Value], said: &Value) {
    let line = humans
        .iter()
        .find(|h| h["question_id"] == said["question_id"])
        .unwrap_or_else(|| panic!("the human's {said} is not on the timeline: {humans:#?}"));
    assert_eq!(line["text"], said["text"], "{line}");
    assert!(line.get("typed").is_none(), "spoken, not typed: {line}");
    let (start, end) = (
        line["speech_start_ms"].as_u64().unwrap(),
        line["speech_end_ms"].as_u64().unwrap(),
    );
    assert!(start + 500 < end, "a spoken question lasts: {line}");
    let read = |name: &str| {
        let path = dir.join(name);
        let mut wav = hound::WavReader::open(&path)
            .unwrap_or_else(|e| panic!("{} is not a readable WAV: {e}", path.display()));
        let rate = u64::from(wav.spec().sample_rate);
        let samples: Vec<f32> = wav
            .samples::<i16>()
            .map(|s| f32::from(s.unwrap()) / 32_768.0)
            .collect();
        (rate, samples)
    };
    let (rate, voice) = read("human.wav");
    let rms = |from_ms: u64, to_ms: u64| {
        let span = &voice[((from_ms * rate / 1000) as usize).min(voice.len())
            ..((to_ms * rate / 1000) as usize).min(voice.len())];
        (span.iter().map(|s| s * s).sum::<f32>() / span.len().max(1) as f32).sqrt()
    };
    let spoken = rms(start, end);
    assert!(
        spoken > 0.01,
        "human.wav is quiet ({spoken}) where {line} was spoken"
    );
    if start > 3_000 {
        // The scripted human keeps silent for a while before it cuts in (its nod may come
        // two seconds before, now that the turns between follow each other quickly).
        let before = rms(start - 1_500, start - 500);
        assert!(
            before * 4.0 < spoken,
            "human.wav is not silent before {line}: {before} against {spoken}"
        );
    }
    let mix = wav_duration(&dir.join("mix.wav"));
    let longer =
        wav_duration(&dir.join("conversation.wav")).max(wav_duration(&dir.join("human.wav")));
    assert_eq!(mix, longer, "mix.wav holds both sides");
}

/// What the samples of a WAV file (its header's count) last.
pub fn wav_duration(path: &Path) -> Duration {
    let wav = hound::WavReader::open(path)
        .unwrap_or_else(|e| panic!("{} is not a readable WAV: {e}", path.display()));
    let rate = u64::from(wav.spec().sample_rate.max(1));
    Duration::from_micros(u64::from(wav.duration()) * 1_000_000 / rate)
}

/// The participants' lines a voice-chat session must hold at least.
pub const VOICE_CHAT_AGENT_LINES: usize = 6;

/// The session folder of a spoken voice-chat run (dataflows/voice-chat.yml), however it
/// ran (one daemon or two): a student opened, the scripted human barged in, was heard and
/// answered by the tutor, the barge-in reset every older question (nothing older said or
/// sounding after it), every turn went to a participant, lines are complete, ordered and
/// never back to back, what was heard is recorded, one voice at a time, at least 10 s of
/// `conversation.wav`, the context frozen and verifying, and the controller's decisions
/// replaying identically (and differently under another pattern).
pub fn assert_voice_chat_session(dir: &Path) {
    let transcript = jsonl(dir, "transcript.jsonl");
    let events = jsonl(dir, "events.jsonl");
    let agents = agent_lines(&transcript);
    assert!(
        agents.len() >= VOICE_CHAT_AGENT_LINES,
        "only {} agent utterances: {transcript:#?}",
        agents.len()
    );
    // Cold start: a student opens, never the tutor.
    assert!(speaker(agents[0]).starts_with("student"), "{transcript:#?}");
    // The scripted human cut in by voice and was transcribed; the tutor answered first.
    let human = assert_human_heard_and_tutor_answered(&transcript);
    // The barge-in reset everything older; nothing older was said after it.
    let reset = events
        .iter()
        .find(|e| e["event"] == "interrupt" && e["detail"] == "reset")
        .unwrap_or_else(|| panic!("no reset: {events:#?}"));
    let reset_id = reset["question_id"].as_u64().unwrap();
    assert_eq!(transcript[human]["question_id"].as_u64().unwrap(), reset_id);
    for line in &transcript[human + 1..] {
        assert!(
            line["question_id"].as_u64().unwrap() > reset_id,
            "stale line after the reset: {line}"
        );
    }
    // Every turn handed out went to a non-human, and utterances are complete and ordered.
    assert!(
        events
            .iter()
            .filter(|e| e["event"] == "turn")
            .all(|e| e["speaker"] != "human"),
        "{events:#?}"
    );
    assert_question_ids_increase(&transcript);
    assert_no_back_to_back(&transcript);
    assert!(
        transcript
            .iter()
            .all(|l| !l["text"].as_str().unwrap().trim().is_empty()),
        "{transcript:#?}"
    );

    // Spoken: what was heard is recorded; an interrupted line was heard only in part.
    for line in &agents {
        let heard = line["text_played"]
            .as_str()
            .unwrap_or_else(|| panic!("agents' lines say what was heard: {line}"));
        // Heard is the voice's form of the text (math said as words may be longer),
        // its phrases joined by a space where a clause broke without one ("toy—your"
        // heard as "toy— your"): compared without the spaces.
        let letters = |text: &str| text.chars().filter(|c| !c.is_whitespace()).count();
        let spoken = text_segmenter::sanitize(line["text"].as_str().unwrap());
        assert!(letters(&spoken) >= letters(heard), "{line}");
    }
    let (humans, timeline): (Vec<Value>, Vec<Value>) = jsonl(dir, "timeline.jsonl")
        .into_iter()
        .partition(|r| r["human"] == true);
    assert!(timeline.len() >= 4, "{timeline:#?}");
    // Never two voices at once, and in question-id order.
    assert_one_voice_in_order(&timeline);
    assert_human_recorded(dir, &humans, &transcript[human]);
    // After the barge-in, nothing of an older question sounded again.
    if let Some(cut) = timeline.iter().position(|r| r["interrupted"] == true) {
        for record in &timeline[cut + 1..] {
            assert!(
                record["question_id"].as_u64().unwrap() > reset_id,
                "stale audio after the interrupt: {record}"
            );
        }
    }
    let heard = wav_duration(&dir.join("conversation.wav"));
    assert!(
        heard >= Duration::from_secs(10),
        "conversation.wav holds {heard:?}, not at least 10 s"
    );
    assert_frozen_context(dir, &transcript);
    assert_replays_identically(dir);
    // Another pattern would have decided otherwise: replay shows where.
    let other = [(
        "DORA_POLICY_PATTERN".to_owned(),
        "[(human, 0.001), (tutor, *), (student2, 2), (student1, 1)]".to_owned(),
    )];
    let replays = replay::replay_session(dir, Some("conference-controller"), &other).unwrap();
    let difference = replays[0].segments[0].first_difference.as_ref();
    assert!(difference.is_some(), "{replays:#?}");
}

/// A loopback port free now, below the range the system hands out for port 0 (32768 and
/// up on Linux): dora's transport binds ports there while a dataflow starts, and took one
/// the test had been given (the console then could not listen on it). Each call gives
/// another port.
pub fn free_port() -> u16 {
    use std::sync::atomic::{AtomicU16, Ordering};
    const LOW: u16 = 20_000;
    const SPAN: u16 = 12_000;
    static NEXT: AtomicU16 = AtomicU16::new(0);
    // Spread by process id, so two test processes start at different places.
    let base = (std::process::id() % u32::from(SPAN)) as u16;
    (0..SPAN)
        .map(|_| LOW + base.wrapping_add(NEXT.fetch_add(1, Ordering::Relaxed)) % SPAN)
        .find(|port| std::net::TcpListener::bind(("127.0.0.1", *port)).is_ok())
        .expect("a free loopback port below 32000")
}

/// The session's decision logs (`decisions/*.jsonl`: the conductor's, every bridge's,
/// the recorder's, the segmenter's where there is one) replay (`tools/replay`) to the same decisions, and the conductor made
/// some (a bridge that was never asked may have decided nothing).
pub fn assert_replays_identically(dir: &Path) {
    let replays = replay::replay_session(dir, None, &[]).unwrap();
    let formats: Vec<&str> = replays.iter().map(|r| r.format.as_str()).collect();
    assert!(formats.contains(&"bridge"), "{formats:?}");
    for node in &replays {
        assert!(!node.differs(), "{node:#?}");
        let decisions: usize = node.segments.iter().map(|s| s.decisions).sum();
        if !["segmenter", "bridge", "session-recorder"].contains(&node.format.as_str()) {
            assert!(decisions > 10, "{node:#?}");
        }
    }
}

/// What a listener of a study session with the embedded model must not hear: no agent
/// line repeats a sentence of the eight lines before it, none recites its instructions,
/// nobody presents itself as someone else (scored by the `conversation-quality` crate).
pub fn assert_conversation_quality(dir: &Path, agenda: &str) {
    let root = repo_root();
    let transcript_text = std::fs::read_to_string(dir.join("transcript.jsonl")).unwrap();
    let lines = conversation_quality::inputs::parse_transcript(&transcript_text).unwrap();
    let agenda_text = std::fs::read_to_string(root.join(agenda)).unwrap();
    let agenda = conversation_quality::inputs::Agenda::from_yaml(&agenda_text).unwrap();
    let mut personas = Vec::new();
    for entry in std::fs::read_dir(root.join("templates")).unwrap().flatten() {
        if let Ok(text) = std::fs::read_to_string(entry.path().join("persona.md")) {
            personas.push(conversation_quality::inputs::Persona::parse(&text).unwrap());
        }
    }
    // Repeated sentences, compared as lower-case words.
    let normalized = |text: &str| -> Vec<String> {
        text.split_inclusive(['.', '!', '?'])
            .map(|s| {
                s.split(|c: char| !c.is_alphanumeric())
                    .filter(|w| !w.is_empty())
                    .map(str::to_lowercase)
                    .collect::<Vec<_>>()
                    .join(" ")
            })
            .filter(|s| s.split(' ').count() >= 3)
            .collect()
    };
    for (i, line) in lines.iter().enumerate().filter(|(_, l)| !l.human) {
        let before: Vec<String> = lines[i.saturating_sub(8)..i]
            .iter()
            .flat_map(|l| normalized(&l.text))
            .collect();
        for sentence in normalized(&line.text) {
            assert!(
                !before.contains(&sentence),
                "{} repeats {sentence:?} from the eight lines before: {lines:#?}",
                line.speaker
            );
        }
    }
    let session = conversation_quality::Session {
        lines,
        events: None,
    };
    let report = conversation_quality::Scorer::new(&agenda, &personas)
        .assess(&session, conversation_quality::Options::default());
    assert_eq!(
        report.recited, 0,
        "recited instructions: {:#?}",
        report.findings
    );
    assert_eq!(
        report.identity_slips, 0,
        "identity slips: {:#?}",
        report.findings
    );
    // The answer to the human takes up the human's words: the bridge refuses a first
    // sentence that does not (but on its last attempt, which may miss).
    let answers = report.human_answers_addressed;
    eprintln!(
        "answers to the human that take up its words: {}/{}",
        answers.count, answers.total
    );
    assert_eq!(
        answers.count, answers.total,
        "an answer to the human missed its words: {:#?}",
        report.findings
    );
}

/// The small, fast model (SmolLM2-135M) as an absolute path: the plumbing tests run it,
/// where what is said matters less than that lines stream at the pace the checks expect.
pub fn small_model() -> String {
    repo_root()
        .join("models/SmolLM2-135M-Instruct.Q4_1.gguf")
        .display()
        .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn line(speaker: &str, id: u64, text: &str, played: &str) -> Value {
        if speaker == "human" {
            json!({"speaker": speaker, "question_id": id, "text": text, "human": true})
        } else {
            json!({"speaker": speaker, "question_id": id, "text": text, "human": false,
                   "interrupted": played.len() < text.len(), "text_played": played})
        }
    }

    /// A recorded session's transcript: the opener taken as a turn, the reply to it cut
    /// off unheard, the rest of the question, the tutor's answer.
    #[test]
    fn a_question_split_after_its_opener_is_heard_whole() {
        let transcript = [
            line("student2", 3, "Here's a small problem.", "Here's"),
            line("human", 5, "All right, then interrupt.", ""),
            line("tutor", 6, "Right.", ""),
            line(
                "human",
                7,
                "Can you show me a derivative with actual numbers?",
                "",
            ),
            line("tutor", 8, "Sure.", "Sure."),
        ];
        assert_eq!(assert_human_heard_and_tutor_answered(&transcript), 1);
    }

    #[test]
    #[should_panic(expected = "cut off at the hesitation")]
    fn a_question_cut_at_the_hesitation_is_not_heard() {
        let transcript = [
            line(
                "human",
                5,
                "Sorry to interrupt, can you show me a derivative with.",
                "",
            ),
            line("tutor", 6, "Right.", ""),
            line("human", 7, "Actual numbers?", ""),
            line("tutor", 8, "Sure.", "Sure."),
        ];
        assert_human_heard_and_tutor_answered(&transcript);
    }

    #[test]
    #[should_panic(expected = "student1")]
    fn a_student_heard_before_the_tutor_fails() {
        let transcript = [
            line(
                "human",
                5,
                "Sorry to interrupt, can you show me a derivative with actual numbers?",
                "",
            ),
            line("student1", 6, "Me too.", "Me too."),
            line("tutor", 7, "Sure.", "Sure."),
        ];
        assert_human_heard_and_tutor_answered(&transcript);
    }
}
