//! Every node of every dataflow, fed bad input on each of its inputs (dora's testing mode,
//! the node's own settings from the YAML, run in the dataflow's folder): wrong Arrow
//! types, empty arrays, non-UTF-8 bytes, wrong metadata types, absurd sample rates,
//! infinite samples, an unknown input id, a 10 MB text, 10,000 chunks and an interrupt
//! storm. The node warns, lives (it stops cleanly when told, in time) and its memory stays
//! bounded.

use std::{
    collections::BTreeMap,
    path::{Path, PathBuf},
    time::Duration,
};

use e2e_tests::{build_workspace, free_port, repo_root, session_dir};
use node_kit::testing::{TestEvent, input, meta, run_node_in, stop, typed_input};
use serde_json::json;
use serde_yaml::Value;

/// What a node may hold at its peak under this input (the largest, the ASR bridge with
/// Whisper loaded, stays far below).
const PEAK_RSS_LIMIT_KIB: u64 = 1024 * 1024;

struct NodeUnderTest {
    dataflow: String,
    id: String,
    binary: PathBuf,
    inputs: Vec<String>,
    env: Vec<(String, String)>,
}

/// `${VAR:-default}` as dora expands it (the test's own environment, else the default).
fn expand(value: &str) -> String {
    match value
        .strip_prefix("${")
        .and_then(|v| v.strip_suffix('}'))
        .and_then(|v| v.split_once(":-"))
    {
        Some((var, default)) => std::env::var(var).unwrap_or_else(|_| default.to_owned()),
        None => value.to_owned(),
    }
}

fn scalar(value: &Value) -> String {
    match value {
        Value::String(s) => expand(s),
        Value::Bool(b) => b.to_string(),
        Value::Number(n) => n.to_string(),
        _ => String::new(),
    }
}

/// Each of our binaries, with the settings of the first dataflow running it and the input
/// ids of all of them.
fn nodes_under_test() -> Vec<NodeUnderTest> {
    let dataflows = repo_root().join("dataflows");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dataflows)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "yml"))
        .filter(|p| !p.file_name().unwrap().to_string_lossy().starts_with('.'))
        .collect();
    files.sort();
    let mut seen = BTreeMap::new();
    for file in files {
        let doc: Value = serde_yaml::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
        for node in doc["nodes"].as_sequence().unwrap() {
            let Some(binary) = node["path"]
                .as_str()
                .and_then(|p| p.strip_prefix("../target/release/"))
            else {
                continue;
            };
            let inputs: Vec<String> = node["inputs"]
                .as_mapping()
                .map(|m| {
                    m.iter()
                        .filter(|(_, source)| {
                            let source = source
                                .as_str()
                                .or_else(|| source["source"].as_str())
                                .unwrap_or_default();
                            !source.starts_with("dora/")
                        })
                        .map(|(id, _)| id.as_str().unwrap().to_owned())
                        .collect()
                })
                .unwrap_or_default();
            let env = node["env"]
                .as_mapping()
                .map(|m| {
                    m.iter()
                        .map(|(k, v)| (k.as_str().unwrap().to_owned(), scalar(v)))
                        .collect()
                })
                .unwrap_or_default();
            // The first dataflow's settings, every dataflow's input ids.
            let entry = seen
                .entry(binary.to_owned())
                .or_insert_with(|| NodeUnderTest {
                    dataflow: file.file_name().unwrap().to_string_lossy().into_owned(),
                    id: node["id"].as_str().unwrap().to_owned(),
                    binary: repo_root().join("target/release").join(binary),
                    inputs: Vec::new(),
                    env,
                });
            for input in inputs {
                if !entry.inputs.contains(&input) {
                    entry.inputs.push(input);
                }
            }
        }
    }
    seen.into_values().collect()
}

/// The bad input, every kind on every input id, then a stop.
fn bad_events(inputs: &[String]) -> Vec<TestEvent> {
    let mut events = Vec::new();
    let mut at = 0.01;
    let mut next = || {
        at += 0.0005;
        at
    };
    let text = "x".repeat(100_000);
    for id in inputs {
        events.push(typed_input(next(), id, json!([1, 2, 3]), "Int64"));
        events.push(input(next(), id, json!([]), json!(null)));
        events.push(typed_input(next(), id, json!([255, 254, 0]), "UInt8"));
        events.push(input(
            next(),
            id,
            json!([text]),
            meta(&[
                ("question_id", json!("not a number")),
                ("speaker", json!(7)),
            ]),
        ));
        events.push(input(
            next(),
            id,
            json!(["{\"half\": "]),
            meta(&[
                ("question_id", json!(-5)),
                ("session_status", json!("sideways")),
            ]),
        ));
        let mut loud = typed_input(next(), id, json!([1e39, -1e39, 0.5]), "Float32");
        loud.value["metadata"] = meta(&[("sample_rate", json!(1_000_000_000_000i64))]);
        events.push(loud);
        let mut tiny = typed_input(next(), id, json!([0.1, 0.2]), "Float32");
        tiny.value["metadata"] = meta(&[("sample_rate", json!(1))]);
        events.push(tiny);
    }
    events.push(input(next(), "no_such_input", json!(["?"]), json!(null)));
    if let Some(first) = inputs.first() {
        events.push(input(
            next(),
            first,
            json!(["y".repeat(10 * 1024 * 1024)]),
            meta(&[
                ("question_id", json!(1)),
                ("session_status", json!("ended")),
            ]),
        ));
        for i in 0..10_000 {
            let status = if i == 0 { "started" } else { "ongoing" };
            events.push(input(
                next(),
                first,
                json!(["chunk "]),
                meta(&[("question_id", json!(2)), ("session_status", json!(status))]),
            ));
        }
    }
    if inputs.iter().any(|i| i == "interrupt") {
        for q in 3..1_003 {
            events.push(input(
                next(),
                "interrupt",
                json!(["reset"]),
                meta(&[("question_id", json!(q))]),
            ));
        }
    }
    events.push(stop(next() + 1.0));
    events
}

#[test]
fn every_node_survives_bad_input_on_every_input() {
    build_workspace();
    let nodes = nodes_under_test();
    assert!(nodes.len() >= 10, "only {} nodes found", nodes.len());
    let dataflows = repo_root().join("dataflows");
    let mut report = Vec::new();
    let mut problems = Vec::new();
    for node in nodes {
        let session = session_dir(&format!("bad-input-{}", node.id));
        let port = free_port().to_string();
        let mut env: Vec<(String, String)> = node.env.clone();
        env.extend([
            ("SESSION_DIR".into(), session.display().to_string()),
            ("CONSOLE_PORT".into(), port),
            // Input handling is what is tested: the template model and voice-less
            // output keep each run short.
            ("LLM_BACKEND".into(), "scripted".into()),
            ("AUDIO_OUTPUT".into(), "none".into()),
            ("RUST_LOG".into(), "warn".into()),
        ]);
        let env: Vec<(&str, &str)> = env.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
        let run = run_node_in(
            &node.binary,
            Some(Path::new(&dataflows)),
            &env,
            bad_events(&node.inputs),
            Duration::from_secs(180),
        );
        let name = format!("{} ({}, {})", node.id, node.binary.display(), node.dataflow);
        let tail: String = run
            .stderr
            .chars()
            .rev()
            .take(3_000)
            .collect::<Vec<_>>()
            .into_iter()
            .rev()
            .collect();
        if !run.success {
            problems.push(format!("{name} did not stop cleanly:\n{tail}"));
        } else if run.stderr.contains("panicked") {
            problems.push(format!("{name} panicked:\n{tail}"));
        } else if !run.stderr.contains("WARN") {
            problems.push(format!("{name} took bad input without a warning:\n{tail}"));
        }
        if let Some(peak) = run.peak_rss_kib.filter(|p| *p >= PEAK_RSS_LIMIT_KIB) {
            problems.push(format!("{name}: peak {peak} KiB"));
        }
        report.push(format!(
            "{:<22} {:>3} inputs  peak {:>7} KiB",
            node.id,
            node.inputs.len(),
            run.peak_rss_kib.unwrap_or_default()
        ));
        e2e_tests::make_writable(&session);
        let _ = std::fs::remove_dir_all(&session);
    }
    eprintln!("{}", report.join("\n"));
    assert!(problems.is_empty(), "{}", problems.join("\n\n"));
}
