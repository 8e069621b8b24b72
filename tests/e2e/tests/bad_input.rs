//! Every node of every dataflow, fed bad input on each of its inputs (dora's testing mode,
//! the node's own settings from the YAML, run in the dataflow's folder): wrong Arrow
//! types, empty arrays, non-UTF-8 bytes, wrong metadata types, absurd sample rates,
//! infinite samples, an unknown input id, a 10 MB text, 10,000 chunks and an interrupt
//! storm, one kind per run. For each kind the node warns naming the problem (the input id
//! or what is wrong), lives (it stops cleanly when told, in time, and where a valid
//! message's answer is simple to see, that answer still comes) and its memory stays
//! bounded.

use std::{
    collections::BTreeMap,
    path::{Path, PathBuf},
    sync::{
        Mutex,
        atomic::{AtomicUsize, Ordering},
    },
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

/// Where a node may take a kind of bad input without a warning, and why: each is known and
/// stays listed in the report (and in docs/RELIABILITY.md) until the node names it.
const TOLERATED: &[(&str, &str, &str)] = &[
    (
        "text-segmenter",
        "an unknown input id",
        "every input but `interrupt` is a participant's text, whatever its name",
    ),
    (
        "scripted-human",
        "*",
        "its one input, `turn`, is a signal whose data and metadata are not read",
    ),
    (
        "console",
        "empty arrays, wrong metadata types, half a JSON object",
        "open: console-core shows or drops these without a warning",
    ),
    (
        "console",
        "infinite samples at 10^12 Hz, samples at 1 Hz",
        "open: console-core drops samples on a text input without a warning",
    ),
    (
        "scripted-presenter",
        "empty arrays, wrong metadata types, half a JSON object",
        "open: the presenter ignores these without a warning",
    ),
];

fn tolerated(binary: &str, kind: &str) -> Option<&'static str> {
    TOLERATED
        .iter()
        .find(|(b, k, _)| *b == binary && (*k == "*" || *k == kind))
        .map(|(_, _, why)| *why)
}

/// One kind of bad input: what is sent (on every input id of the node, from `at`), and the
/// words a warning about it may use besides the input id it came on.
struct Kind {
    name: &'static str,
    events: fn(&[String], &mut dyn FnMut() -> f64) -> Vec<TestEvent>,
    /// Words that name the problem; a warning naming the input id counts too.
    names: &'static [&'static str],
    /// The id a warning must name when the kind is not about the node's own inputs.
    must_name: Option<&'static str>,
}

fn kinds() -> Vec<Kind> {
    vec![
        Kind {
            name: "Int64 instead of text or samples",
            events: |inputs, next| {
                inputs
                    .iter()
                    .map(|id| typed_input(next(), id, json!([1, 2, 3]), "Int64"))
                    .collect()
            },
            names: &[
                "Int64",
                "Utf8",
                "UTF-8",
                "Float32",
                "type",
                "unreadable",
                "expected",
            ],
            must_name: None,
        },
        Kind {
            name: "non-UTF-8 bytes",
            events: |inputs, next| {
                inputs
                    .iter()
                    .map(|id| typed_input(next(), id, json!([255, 254, 0]), "UInt8"))
                    .collect()
            },
            names: &[
                "UInt8",
                "Utf8",
                "UTF-8",
                "utf-8",
                "Float32",
                "type",
                "unreadable",
                "expected",
            ],
            must_name: None,
        },
        Kind {
            name: "empty arrays, wrong metadata types, half a JSON object",
            events: |inputs, next| {
                let text = "x".repeat(100_000);
                let mut events = Vec::new();
                for id in inputs {
                    events.push(input(next(), id, json!([]), json!(null)));
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
                }
                events
            },
            names: &[
                "question_id",
                "session_status",
                "speaker",
                "metadata",
                "JSON",
                "json",
                "empty",
                "Null",
                "missing",
                "without",
                "invalid",
                "unreadable",
                "expected",
                "parse",
            ],
            must_name: None,
        },
        Kind {
            name: "infinite samples at 10^12 Hz, samples at 1 Hz",
            events: |inputs, next| {
                let mut events = Vec::new();
                for id in inputs {
                    let mut loud = typed_input(next(), id, json!([1e39, -1e39, 0.5]), "Float32");
                    loud.value["metadata"] = meta(&[("sample_rate", json!(1_000_000_000_000i64))]);
                    events.push(loud);
                    let mut tiny = typed_input(next(), id, json!([0.1, 0.2]), "Float32");
                    tiny.value["metadata"] = meta(&[("sample_rate", json!(1))]);
                    events.push(tiny);
                }
                events
            },
            names: &[
                "sample_rate",
                "non-finite",
                "Float32",
                "Utf8",
                "UTF-8",
                "type",
                "unreadable",
                "expected",
            ],
            must_name: None,
        },
        Kind {
            name: "an unknown input id",
            events: |_, next| vec![input(next(), "no_such_input", json!(["?"]), json!(null))],
            names: &[],
            must_name: Some("no_such_input"),
        },
    ]
}

/// The floods on the node's first input: a 10 MB text, 10,000 chunks of one turn, and
/// (where the node has one) 1,000 interrupts. Memory must stay bounded; a warning is not
/// required (a long text may be taken, capped).
fn floods(inputs: &[String], next: &mut dyn FnMut() -> f64) -> Vec<TestEvent> {
    let mut events = Vec::new();
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
    events
}

/// The question id of a probe: newer than any interrupt of the floods.
const PROBE_Q: u64 = 5_000;

/// A valid message after the bad ones, and what the node must make of it: proof that it
/// still works. Only for the nodes whose answer to one message is simple to see.
struct Probe {
    events: Vec<TestEvent>,
    expected: String,
    check: fn(&node_kit::testing::NodeRun, &Path) -> bool,
}

fn keep_moving(from: f64, to: f64) -> Vec<TestEvent> {
    node_kit::testing::keepalive(from, to)
}

fn probe(node: &NodeUnderTest, at: f64) -> Option<Probe> {
    let binary = node.binary.file_name()?.to_string_lossy().into_owned();
    let participant = node
        .inputs
        .iter()
        .find(|i| !["interrupt", "control", "human_text", "request"].contains(&i.as_str()))
        .cloned();
    let probe = match binary.as_str() {
        "text-segmenter" => Probe {
            events: vec![input(
                at,
                &participant?,
                json!(["Probe sentence after the storm. "]),
                meta(&[
                    ("question_id", json!(PROBE_Q)),
                    ("session_status", json!("ended")),
                ]),
            )],
            expected: "a segment of the probe".into(),
            check: |run, _| {
                run.texts_of("segment")
                    .iter()
                    .any(|t| t.contains("Probe sentence after the storm."))
            },
        },
        "session-recorder" => Probe {
            events: vec![input(
                at,
                "utterance",
                json!(["Probe line after the storm."]),
                meta(&[("question_id", json!(PROBE_Q)), ("speaker", json!("tutor"))]),
            )],
            expected: "the probe line in transcript.jsonl".into(),
            check: |_, session| {
                std::fs::read_to_string(session.join("transcript.jsonl"))
                    .is_ok_and(|t| t.contains("Probe line after the storm."))
            },
        },
        "tts-player" => {
            // An interrupt first: whatever the bad input queued (a 10,000-character
            // utterance is minutes of speech) is dropped, as after any barge-in.
            let mut events = vec![input(
                at - 0.01,
                "interrupt",
                json!(["reset"]),
                meta(&[("question_id", json!(PROBE_Q))]),
            )];
            events.push(input(
                at,
                "segment",
                json!(["Probe sentence."]),
                meta(&[
                    ("question_id", json!(PROBE_Q)),
                    ("speaker", json!("tutor")),
                    ("segment_index", json!(0)),
                    ("last_segment", json!(true)),
                ]),
            ));
            events.extend(keep_moving(at + 0.01, at + 3.0));
            Probe {
                events,
                expected: "playback_done of the probe".into(),
                check: |run, _| {
                    run.texts_of("playback_done")
                        .iter()
                        .any(|t| t.contains("Probe sentence."))
                },
            }
        }
        "conference-controller" if node.inputs.iter().any(|i| i == "human_text") => Probe {
            events: vec![input(
                at,
                "human_text",
                json!(["Probe question from the human?"]),
                json!(null),
            )],
            expected: "an utterance of the probe".into(),
            check: |run, _| {
                run.texts_of("utterance")
                    .iter()
                    .any(|t| t.contains("Probe question from the human?"))
            },
        },
        _ => return None,
    };
    Some(probe)
}

/// Log lines at WARN or above.
fn warnings(stderr: &str) -> Vec<&str> {
    stderr
        .lines()
        .filter(|l| l.contains("WARN") || l.contains("ERROR"))
        .collect()
}

/// Runs `node` on `events` (a stop follows) in its dataflow's folder with its settings.
fn run(
    node: &NodeUnderTest,
    tag: &str,
    events: Vec<TestEvent>,
) -> (node_kit::testing::NodeRun, PathBuf) {
    // Named after the binary, which is unique here: two checked at once may share a node
    // id (`moderator` is the roundtable's and the rehearsal's).
    let binary = node
        .binary
        .file_name()
        .unwrap_or_default()
        .to_string_lossy();
    let session = session_dir(&format!("bad-input-{binary}-{tag}"));
    let port = free_port().to_string();
    let mut env: Vec<(String, String)> = node.env.clone();
    env.extend([
        ("SESSION_DIR".into(), session.display().to_string()),
        ("CONSOLE_PORT".into(), port),
        // Input handling is what is tested: the template model, espeak-ng's instant
        // voice and voice-less output keep each run short (a Kokoro call on a flood's
        // 500-character piece lasts longer than a round).
        ("LLM_BACKEND".into(), "scripted".into()),
        ("TTS_BACKEND".into(), "espeak".into()),
        ("HUMAN_VOICE".into(), "en-us+m7".into()),
        ("AUDIO_OUTPUT".into(), "none".into()),
        ("RUST_LOG".into(), "warn".into()),
    ]);
    let env: Vec<(&str, &str)> = env.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
    let dataflows = repo_root().join("dataflows");
    let run = run_node_in(
        &node.binary,
        Some(Path::new(&dataflows)),
        &env,
        events,
        Duration::from_secs(180),
    );
    (run, session)
}

fn tail(text: &str) -> String {
    let start = text.len().saturating_sub(3_000);
    let start = (start..text.len())
        .find(|&i| text.is_char_boundary(i))
        .unwrap_or(0);
    text[start..].to_owned()
}

/// What the bad input did to one node: its report line, the problems, and the kinds it
/// took without a warning, as tolerated.
struct Checked {
    report: String,
    problems: Vec<String>,
    tolerances: Vec<String>,
}

/// Feeds `node` every kind of bad input, one run a kind.
fn feed_bad_input(node: &NodeUnderTest) -> Checked {
    let mut problems = Vec::new();
    let mut tolerances = Vec::new();
    let name = format!("{} ({}, {})", node.id, node.binary.display(), node.dataflow);
    let mut peak = 0;
    let mut probed = 0;
    let rounds = kinds().len() + 1;
    for round in 0..rounds {
        let kind = kinds().into_iter().nth(round);
        let mut at = 0.01;
        let mut next = || {
            at += 0.0005;
            at
        };
        let (label, mut events) = match &kind {
            Some(kind) => (kind.name, (kind.events)(&node.inputs, &mut next)),
            None => ("floods", floods(&node.inputs, &mut next)),
        };
        let check = probe(node, next() + 0.5);
        let end = match check.as_ref().and_then(|p| p.events.last()) {
            Some(last) => last.at_secs,
            None => next(),
        };
        if let Some(probe) = &check {
            events.extend(probe.events.iter().map(|e| TestEvent {
                at_secs: e.at_secs,
                value: e.value.clone(),
            }));
        }
        events.push(stop(end + 1.0));
        let (outcome, session) = run(node, &round.to_string(), events);
        let name = format!("{name}, {label}");
        peak = peak.max(outcome.peak_rss_kib.unwrap_or_default());
        if !outcome.success {
            problems.push(format!(
                "{name}: did not stop cleanly:\n{}",
                tail(&outcome.stderr)
            ));
        } else if outcome.stderr.contains("panicked") {
            problems.push(format!("{name}: panicked:\n{}", tail(&outcome.stderr)));
        }
        if let Some(kind) = &kind {
            let warned = warnings(&outcome.stderr);
            let named = warned.iter().any(|line| match kind.must_name {
                Some(id) => line.contains(id),
                None => {
                    node.inputs.iter().any(|id| {
                        line.contains(&format!("input={id}"))
                            || line.contains(&format!("input=\"{id}\""))
                    }) || kind.names.iter().any(|word| line.contains(word))
                }
            });
            let binary = node
                .binary
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default();
            if let (false, Some(why)) = (named, tolerated(&binary, kind.name)) {
                tolerances.push(format!("{name}: no warning ({why})"));
            } else if !named {
                problems.push(format!(
                    "{name}: no warning names the problem (its input id or one of: {}):\n{}",
                    kind.must_name
                        .map_or_else(|| kind.names.join(", "), str::to_owned),
                    warned.join("\n")
                ));
            }
        }
        if let Some(probe) = &check {
            if (probe.check)(&outcome, &session) {
                probed += 1;
            } else {
                problems.push(format!(
                    "{name}: no {} after the bad input:\n{}",
                    probe.expected,
                    tail(&outcome.stderr)
                ));
            }
        }
        if let Some(p) = outcome.peak_rss_kib.filter(|p| *p >= PEAK_RSS_LIMIT_KIB) {
            problems.push(format!("{name}: peak {p} KiB"));
        }
        e2e_tests::make_writable(&session);
        let _ = std::fs::remove_dir_all(&session);
    }
    let report = format!(
        "{:<22} {:>3} inputs  peak {:>7} KiB  still working after {}",
        node.id,
        node.inputs.len(),
        peak,
        if probed > 0 {
            format!("{probed}/{rounds} rounds")
        } else {
            "(no probe; stopped cleanly)".into()
        }
    );
    Checked {
        report,
        problems,
        tolerances,
    }
}

/// Nodes checked at once: a run mostly waits for its inputs' times, and the machine has
/// two cores.
const WORKERS: usize = 2;

#[test]
fn every_node_survives_bad_input_on_every_input() {
    build_workspace();
    let nodes = nodes_under_test();
    assert!(nodes.len() >= 10, "only {} nodes found", nodes.len());
    let next = AtomicUsize::new(0);
    let checked: Mutex<BTreeMap<usize, Checked>> = Mutex::new(BTreeMap::new());
    std::thread::scope(|scope| {
        for _ in 0..WORKERS {
            scope.spawn(|| {
                loop {
                    let index = next.fetch_add(1, Ordering::SeqCst);
                    let Some(node) = nodes.get(index) else { break };
                    let result = feed_bad_input(node);
                    checked.lock().unwrap().insert(index, result);
                }
            });
        }
    });
    let checked = checked.into_inner().unwrap();
    assert_eq!(checked.len(), nodes.len(), "a node was not checked");
    let report: Vec<&str> = checked.values().map(|c| c.report.as_str()).collect();
    let tolerances: Vec<&str> = checked
        .values()
        .flat_map(|c| c.tolerances.iter().map(String::as_str))
        .collect();
    let problems: Vec<&str> = checked
        .values()
        .flat_map(|c| c.problems.iter().map(String::as_str))
        .collect();
    eprintln!("{}", report.join("\n"));
    eprintln!(
        "taken without a warning, as listed:\n{}",
        tolerances.join("\n")
    );
    assert!(problems.is_empty(), "{}", problems.join("\n\n"));
}
