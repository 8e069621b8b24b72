//! The node-hub stand-in voice (`dataflows/hub/espeak.py`, espeak-ng from Python) neutralises
//! text exactly as the player does (`player_core::voice_text::sanitize`): the same hostile
//! and generated texts give the same result, with no markup, `[[` or control character
//! left, and a leading `-` is spoken rather than read as an option.

use std::{
    io::Write,
    path::{Path, PathBuf},
    process::{Command, Stdio},
};

use player_core::voice_text::{holds_markup, sanitize};
use serde_json::json;

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn python() -> PathBuf {
    let venv = repo().join(".venv/bin/python");
    if venv.exists() {
        venv
    } else {
        PathBuf::from("python3")
    }
}

/// Runs a Python snippet with `dataflows/hub` importable, JSON in on stdin, JSON out.
fn run_python(code: &str, input: &serde_json::Value) -> serde_json::Value {
    let mut child = Command::new(python())
        .args(["-c", code])
        .env("PYTHONPATH", repo().join("dataflows/hub"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("python runs");
    child
        .stdin
        .take()
        .unwrap()
        .write_all(input.to_string().as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("JSON from python")
}

/// Texts built from the pieces that matter, by a fixed linear congruential sequence.
fn generated(count: usize) -> Vec<String> {
    const PIECES: &[&str] = &[
        "word",
        " ",
        ".",
        "<",
        ">",
        "<speak>",
        "</prosody>",
        "<break time=\"3s\"/>",
        "<!--",
        "-->",
        "<?xml?>",
        "[[",
        "]]",
        "[",
        "]",
        "\u{1}",
        "\u{0}",
        "\u{1b}[31m",
        "\u{85}",
        "\n",
        "\t",
        "\r",
        "x < y",
        "3<4",
        "<b",
        "a",
        "é",
        "你好",
        "/",
        "!",
        "?",
        "-",
        "--help",
    ];
    let mut state: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut next = move || {
        state = state
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        (state >> 33) as usize
    };
    (0..count)
        .map(|_| {
            let len = next() % 12;
            (0..len).map(|_| PIECES[next() % PIECES.len()]).collect()
        })
        .collect()
}

#[test]
fn the_hub_voice_neutralises_text_like_the_player() {
    let mut texts: Vec<String> = [
        "<speak>Hello<break time=\"3s\"/>world</speak>",
        "say [[h@l'oU]] now",
        "\u{1}80S loud",
        "<phoneme alphabet=\"ipa\" ph=\"x\">word</phoneme>",
        "x < y and y > z",
        "if a<b then",
        "<<speak>x",
        "-v de --help",
        "",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    texts.extend(generated(2_000));
    let theirs = run_python(
        "import json, sys\nfrom espeak import neutralise\n\
         print(json.dumps([neutralise(t) for t in json.load(sys.stdin)]))",
        &json!(texts),
    );
    let theirs: Vec<String> = serde_json::from_value(theirs).unwrap();
    assert_eq!(theirs.len(), texts.len());
    for (text, neutralised) in texts.iter().zip(&theirs) {
        assert_eq!(neutralised, &sanitize(text), "for {text:?}");
        assert!(!holds_markup(neutralised), "{neutralised:?}");
    }
}

/// espeak-ng gets the text after `--`: `-w FILE` is spoken, no file is written.
#[test]
fn the_hub_voice_speaks_a_leading_dash() {
    let target = std::env::temp_dir().join(format!("hub-dash-{}.wav", std::process::id()));
    let text = format!("-w {} --help", target.display());
    let answer = run_python(
        "import json, sys\nfrom espeak import speak\n\
         samples, rate = speak(json.load(sys.stdin))\n\
         print(json.dumps({'seconds': len(samples) / rate, 'peak': float(abs(samples).max())}))",
        &json!(text),
    );
    assert!(answer["seconds"].as_f64().unwrap() > 1.0, "{answer}");
    assert!(answer["peak"].as_f64().unwrap() > 0.05, "{answer}");
    assert!(!target.exists(), "an option was read from the text");
}
