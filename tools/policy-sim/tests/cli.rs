//! policy-sim as a user runs it.

use std::process::Command;

use serde_json::Value;

const BIN: &str = env!("CARGO_BIN_EXE_policy-sim");

fn sim(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(BIN).args(args).output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

#[test]
fn text_output_one_line_per_turn_then_stats() {
    let (code, out, _) = sim(&["--pattern", "[A → B → C]", "--turns", "4", "--words", "10"]);
    assert_eq!(code, 0);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(&lines[..4], ["1 A 10", "2 B 10", "3 C 10", "4 A 10"]);
    assert!(out.contains("mode: sequential"));
    assert!(out.contains("cycle: 1"));
}

#[test]
fn json_output_and_human_interjections() {
    let pattern = "[(human, 0.001), (tutor, *), (student1, 1), (student2, 1)]";
    let (code, out, _) = sim(&[
        "--pattern",
        pattern,
        "--turns",
        "30",
        "--human-at",
        "10,25",
        "--json",
    ]);
    assert_eq!(code, 0);
    let values: Vec<Value> = out
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(values.len(), 31);
    assert_eq!(values[0]["turn"], 1);
    assert_eq!(values[0]["speaker"], "student1");
    // After each human interjection the tutor answers first.
    assert_eq!(values[9]["speaker"], "tutor");
    assert_eq!(values[24]["speaker"], "tutor");
    for v in &values[..30] {
        let w = v["words"].as_u64().unwrap();
        assert!((5..=40).contains(&w));
        assert_ne!(v["speaker"], "human");
    }
    let stats = &values[30];
    assert_eq!(stats["mode"], "ratio_priority");
    assert_eq!(stats["weights"][1]["weight"], "*");
    // Counts restarted at turn 25: the human's 8 words are in them.
    assert_eq!(stats["word_counts"]["human"], 8);
}

#[test]
fn example_3_converges() {
    let (code, out, _) = sim(&[
        "--pattern",
        "[(moderator, 3), (expert1, 2), (expert2, 2), (guest, 1)]",
        "--turns",
        "1000",
        "--json",
    ]);
    assert_eq!(code, 0);
    let stats: Value = serde_json::from_str(out.lines().last().unwrap()).unwrap();
    let counts = stats["word_counts"].as_object().unwrap();
    let total: u64 = counts.values().map(|v| v.as_u64().unwrap()).sum();
    for (name, target) in [
        ("moderator", 3.0),
        ("expert1", 2.0),
        ("expert2", 2.0),
        ("guest", 1.0),
    ] {
        let share = counts[name].as_u64().unwrap() as f64 / total as f64;
        assert!((share - target / 8.0).abs() < 0.02, "{name}: {share}");
    }
}

#[test]
fn invalid_pattern_exits_2_with_the_caret() {
    let (code, out, err) = sim(&["--pattern", "[(a, 0)]", "--turns", "3"]);
    assert_eq!(code, 2);
    assert!(out.is_empty());
    assert!(err.contains("weight 0 is not allowed"), "{err}");
    assert!(err.contains("  [(a, 0)]\n       ^"), "{err}");
}
