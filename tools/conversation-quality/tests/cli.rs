//! The binary end to end, on a small session folder made for the test.

use std::{
    fs,
    path::{Path, PathBuf},
    process::{Command, Output},
};

use tempfile::TempDir;

const TRANSCRIPT: &str = r#"{"speaker":"tutor","question_id":1,"text":"The slope of the tangent line is the derivative.","start_ms":0,"end_ms":900,"interrupted":false,"human":false}
{"speaker":"student1","question_id":2,"text":"The slope of the tangent line is the derivative.","start_ms":1000,"end_ms":1900,"interrupted":false,"human":false}
{"speaker":"human","question_id":3,"text":"Why is the slope a limit?","start_ms":2000,"end_ms":2000,"interrupted":false,"human":true}
{"speaker":"tutor","question_id":4,"text":"I'm Ben, and I like pizza.","start_ms":3000,"end_ms":3900,"interrupted":false,"human":false,"text_played":"I'm Ben"}
{"speaker":"student1","question_id":6,"text":"**Thanks!**","start_ms":4000,"end_ms":4900,"interrupted":false,"human":false}
"#;

const EVENTS: &str = r#"{"t_ms":0,"event":"turn","speaker":"tutor","question_id":1}
{"t_ms":1000,"event":"turn","speaker":"student1","question_id":2}
{"t_ms":2500,"event":"turn","speaker":"tutor","question_id":4}
{"t_ms":3500,"event":"turn","speaker":"student2","question_id":5}
{"t_ms":3600,"event":"turn","speaker":"student1","question_id":6}
"#;

const AGENDA: &str = "topic: derivatives in calculus\nagenda:\n  - the slope of the tangent\nlexicon: [slope, tangent, limit]\n";

/// A fake workspace: a session folder, an agenda and two personas.
struct Fixture {
    dir: TempDir,
}

impl Fixture {
    fn new() -> Self {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        write(&root.join("session/transcript.jsonl"), TRANSCRIPT);
        write(&root.join("session/events.jsonl"), EVENTS);
        write(&root.join("agenda.yml"), AGENDA);
        write(
            &root.join("templates/tutor/persona.md"),
            "+++\nname = \"tutor\"\ndisplay_name = \"Ms. Rivera\"\n+++\nYou are Ms. Rivera, a patient calculus tutor.\n",
        );
        write(
            &root.join("templates/student1/persona.md"),
            "+++\nname = \"student1\"\ndisplay_name = \"Ben\"\n+++\nYou are Ben, a student.\n",
        );
        Self { dir }
    }

    fn path(&self, relative: &str) -> PathBuf {
        self.dir.path().join(relative)
    }

    fn run(&self, extra: &[&str]) -> Output {
        Command::new(env!("CARGO_BIN_EXE_conversation-quality"))
            .arg(self.path("session"))
            .arg("--agenda")
            .arg(self.path("agenda.yml"))
            .arg("--templates")
            .arg(self.path("templates"))
            .args(extra)
            .output()
            .unwrap()
    }
}

fn write(path: &Path, text: &str) {
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(path, text).unwrap();
}

fn stdout(output: &Output) -> String {
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout.clone()).unwrap()
}

#[test]
fn prints_a_markdown_row_per_session() {
    let f = Fixture::new();
    let out = stdout(&f.run(&["--label", "smoke"]));
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 3, "{out}");
    assert!(lines[0].starts_with("| session | agent lines |"), "{out}");
    // 4 agent lines, 1 human; 1 echo of 4; 2 on topic of 4; 1 identity slip; the answer
    // to the human misses; a silent turn (student2's); 1 markup line; the distinct
    // bigrams of what was heard (the tutor's line only as far as "I'm Ben"); the agenda
    // asks for no language.
    assert_eq!(
        lines[2], "| smoke | 4 | 1 | 25.0 | 50.0 | 0 | 1 | 0/1 | 1 | 1 | 0 | 0.53 | – |",
        "{out}"
    );
}

#[test]
fn json_holds_counts_and_rates() {
    let f = Fixture::new();
    let out = stdout(&f.run(&["--json"]));
    let v: serde_json::Value = serde_json::from_str(out.trim()).unwrap();
    assert_eq!(v["label"], "session");
    assert_eq!(v["agent_lines"], 4);
    assert_eq!(v["echo"]["count"], 1);
    assert_eq!(v["rates"]["echo"], 0.25);
    assert_eq!(v["silent_turns"], 1);
    assert_eq!(v["identity_slips"], 1);
}

#[test]
fn explain_lists_failing_lines_on_stderr() {
    let f = Fixture::new();
    let output = f.run(&["--explain", "--no-header"]);
    let err = String::from_utf8_lossy(&output.stderr);
    assert!(err.contains("[q2] student1:"), "{err}");
    assert!(err.contains("echo (100%"), "{err}");
    assert!(err.contains("presents itself as ben"), "{err}");
    assert!(
        err.contains("[q5] student2: (no line) — turn handed out, no line"),
        "{err}"
    );
    assert!(!stdout(&output).contains("agent lines"));
}

#[test]
fn skipped_seconds_leave_early_lines_out() {
    let f = Fixture::new();
    let out = stdout(&f.run(&["--json", "--skip-secs", "2.5"]));
    let v: serde_json::Value = serde_json::from_str(out.trim()).unwrap();
    assert_eq!(v["agent_lines"], 2);
    assert_eq!(v["human_lines"], 0);
}

#[test]
fn a_missing_transcript_names_its_path_and_exits_2() {
    let f = Fixture::new();
    fs::remove_file(f.path("session/transcript.jsonl")).unwrap();
    let output = f.run(&[]);
    assert_eq!(output.status.code(), Some(2));
    let err = String::from_utf8_lossy(&output.stderr);
    assert!(err.contains("session/transcript.jsonl"), "{err}");
}

#[test]
fn a_bad_agenda_names_its_path_and_exits_2() {
    let f = Fixture::new();
    write(&f.path("agenda.yml"), "topic: [unclosed\n");
    let output = f.run(&[]);
    assert_eq!(output.status.code(), Some(2));
    let err = String::from_utf8_lossy(&output.stderr);
    assert!(err.contains("agenda.yml"), "{err}");
    assert!(err.contains("bad agenda"), "{err}");
}

#[test]
fn a_bad_transcript_line_is_named() {
    let f = Fixture::new();
    write(
        &f.path("session/transcript.jsonl"),
        "{\"speaker\":\"tutor\"}\n",
    );
    let output = f.run(&[]);
    assert_eq!(output.status.code(), Some(2));
    let err = String::from_utf8_lossy(&output.stderr);
    assert!(
        err.contains("transcript.jsonl") && err.contains("line 1"),
        "{err}"
    );
}
