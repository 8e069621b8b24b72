//! What a dataflow's participants lack: a YAML file (or the descriptor dora hands a node)
//! in, findings out, each naming the node to edit and the line to add.
//!
//! A *participant* is a node with a `text` output (a bridge, a moderator that speaks).
//! Each one must be an input of the node that hands it its turns (the node whose `turn`
//! output it takes), of every text segmenter (`segment` output), and be listed in every
//! session recorder's `AGENTS` when that is set. Every name of a controller's
//! `DORA_POLICY_PATTERN`, humans apart, must be a node. A bridge that asks the model host
//! (a `model` output) must be an input of a model host (the node with `model_reply`) and
//! take its replies, and, handed its turns by a conference controller, be told by it when
//! it speaks next (`prepare`). Every input from a node must
//! have `queue_policy: backpressure`: dora 1.1 has no dataflow-wide default, and its
//! default policy drops the oldest message when a queue is full (a timer's ticks may
//! drop).
//!
//! A setting of the project's own programs that the program does not read (a misspelt
//! name, a setting given to the wrong node) is named, with the setting it most likely
//! meant ([`settings`]). So is an input its program does not read ([`inputs`]).
//!
//! A forgotten line otherwise fails silently: a participant never heard, or never
//! given the floor, or a message dropped under load.

pub mod inputs;
pub mod settings;

use std::collections::BTreeMap;

use serde_yaml::Value;

/// One thing to add.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finding {
    /// The node to edit.
    pub node: String,
    /// What is wrong, in a sentence.
    pub problem: String,
    /// The YAML to add under that node (or the node to add).
    pub fix: String,
}

impl std::fmt::Display for Finding {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "node `{}`: {}\n    add: {}",
            self.node, self.problem, self.fix
        )
    }
}

#[derive(Debug, thiserror::Error)]
pub enum CheckError {
    #[error("not YAML: {0}")]
    Yaml(#[from] serde_yaml::Error),
    #[error("the dataflow has no `nodes` list")]
    NoNodes,
}

/// One input of a node.
#[derive(Debug, Clone)]
struct Input {
    id: String,
    /// `node/output`, as written.
    source: String,
    backpressure: bool,
}

/// A node, as far as the checks need it.
#[derive(Debug, Clone)]
struct Node {
    id: String,
    /// The executable's file name (`llm-bridge`, `text-segmenter`, …).
    program: String,
    inputs: Vec<Input>,
    outputs: Vec<String>,
    env: BTreeMap<String, String>,
}

impl Node {
    fn takes(&self, source: &str) -> bool {
        self.inputs.iter().any(|i| i.source == source)
    }

    fn outputs(&self, output: &str) -> bool {
        self.outputs.iter().any(|o| o == output)
    }
}

/// The findings for a dataflow given as YAML text.
pub fn check(yaml: &str) -> Result<Vec<Finding>, CheckError> {
    check_value(&serde_yaml::from_str(yaml)?)
}

/// The findings for a parsed dataflow (a file's YAML or a descriptor turned into YAML).
pub fn check_value(dataflow: &Value) -> Result<Vec<Finding>, CheckError> {
    let nodes: Vec<Node> = dataflow
        .get("nodes")
        .and_then(Value::as_sequence)
        .ok_or(CheckError::NoNodes)?
        .iter()
        .filter_map(node_of)
        .collect();
    let mut findings = Vec::new();
    pattern_nodes(&nodes, &mut findings);
    for participant in nodes.iter().filter(|n| n.outputs("text")) {
        participant_wiring(participant, &nodes, &mut findings);
    }
    for bridge in nodes.iter().filter(|n| n.outputs("model")) {
        model_host_wiring(bridge, &nodes, &mut findings);
    }
    queue_policies(&nodes, &mut findings);
    unread_settings(&nodes, &mut findings);
    unread_inputs(&nodes, &mut findings);
    Ok(findings)
}

/// Every setting in a node's `env` is one its program reads.
fn unread_settings(nodes: &[Node], findings: &mut Vec<Finding>) {
    for node in nodes {
        let Some(known) = settings::settings_of(&node.program) else {
            continue;
        };
        let env: Vec<(&str, &str)> = node
            .env
            .iter()
            .map(|(k, v)| (k.as_str(), v.as_str()))
            .collect();
        for (name, value) in &env {
            if settings::reads(known, name, &env) {
                continue;
            }
            let meant = settings::closest(name, known);
            findings.push(Finding {
                node: node.id.clone(),
                problem: format!(
                    "`{name}` is not a setting of {}: it is ignored{}",
                    node.program,
                    meant.map_or(String::new(), |m| format!(" (did you mean `{m}`?)"))
                ),
                fix: match meant {
                    Some(meant) => format!("{meant}: {value} (in place of {name})"),
                    None => format!(
                        "one of its settings in place of {name}: {}",
                        known.join(", ")
                    ),
                },
            });
        }
    }
}

/// Every input of a node is one its program reads.
fn unread_inputs(nodes: &[Node], findings: &mut Vec<Finding>) {
    for node in nodes {
        let Some(reads) = inputs::inputs_of(&node.program) else {
            continue;
        };
        for input in node
            .inputs
            .iter()
            .filter(|i| !reads.reads(&i.id, &i.source))
        {
            findings.push(Finding {
                node: node.id.clone(),
                problem: format!(
                    "input `{}` (from `{}`) is not one {} reads: it is ignored, or taken for something else",
                    input.id, input.source, node.program
                ),
                fix: format!(
                    "one of its inputs in place of {}: {}",
                    input.id,
                    reads.describe()
                ),
            });
        }
    }
}

/// The line that makes `node` take `participant`'s text.
fn text_input_line(participant: &str) -> String {
    format!("{participant}: {{ source: {participant}/text, queue_policy: backpressure }}")
}

/// Every name of a controller's pattern, humans apart, has a node.
fn pattern_nodes(nodes: &[Node], findings: &mut Vec<Finding>) {
    for controller in nodes {
        let Some(pattern) = controller.env.get("DORA_POLICY_PATTERN") else {
            continue;
        };
        let Ok(policy) = turn_policy::Policy::parse(pattern) else {
            findings.push(Finding {
                node: controller.id.clone(),
                problem: format!("DORA_POLICY_PATTERN {pattern:?} does not parse"),
                fix: "a pattern such as \"[(human, 0.001), (tutor, *), (student1, 1)]\"".into(),
            });
            continue;
        };
        let humans: Vec<&str> = controller
            .env
            .get("HUMAN_PARTICIPANTS")
            .map(|h| h.split(',').map(str::trim).collect())
            .unwrap_or_default();
        for name in policy.names() {
            if name == "human" || humans.contains(&name) {
                continue;
            }
            if !nodes.iter().any(|n| n.id == name) {
                findings.push(Finding {
                    node: controller.id.clone(),
                    problem: format!(
                        "participant `{name}` of DORA_POLICY_PATTERN has no node (its bridge): it would never speak"
                    ),
                    fix: format!(
                        "a node `- id: {name}` (an llm-bridge like the others, its `turn` from `{}/turn`) and, under `{}` inputs, {}",
                        controller.id,
                        controller.id,
                        text_input_line(name)
                    ),
                });
            }
        }
    }
}

/// A participant is an input of its turn giver and of every segmenter, and listed in
/// every recorder's `AGENTS`.
fn participant_wiring(participant: &Node, nodes: &[Node], findings: &mut Vec<Finding>) {
    let text = format!("{}/text", participant.id);
    let givers = participant
        .inputs
        .iter()
        .filter_map(|i| i.source.strip_suffix("/turn"))
        .filter_map(|giver| nodes.iter().find(|n| n.id == giver));
    for giver in givers {
        // The controller foretells the next speaker (`prepare`): a bridge that is not
        // told reads its whole turn only when handed it, seconds the listener hears.
        let prepare = format!("{}/prepare", giver.id);
        if giver.program == "conference-controller"
            && participant.outputs("model")
            && !(giver.outputs("prepare") && participant.takes(&prepare))
        {
            findings.push(Finding {
                node: participant.id.clone(),
                problem: format!(
                    "is not told by `{}` when it speaks next: it reads its turn only when handed it",
                    giver.id
                ),
                fix: format!(
                    "prepare: {{ source: {prepare}, queue_policy: backpressure }} (and `prepare` in `{}`'s outputs)",
                    giver.id
                ),
            });
        }
        if !giver.takes(&text) {
            findings.push(Finding {
                node: giver.id.clone(),
                problem: format!(
                    "hands `{}` its turns but does not take its text: its turn would never end",
                    participant.id
                ),
                fix: text_input_line(&participant.id),
            });
        }
    }
    for segmenter in nodes.iter().filter(|n| n.outputs("segment")) {
        if !segmenter.takes(&text) {
            findings.push(Finding {
                node: segmenter.id.clone(),
                problem: format!(
                    "does not take `{}`'s text: it would never be heard",
                    participant.id
                ),
                fix: text_input_line(&participant.id),
            });
        }
    }
    for recorder in nodes.iter().filter(|n| n.program == "session-recorder") {
        let Some(agents) = recorder.env.get("AGENTS") else {
            continue;
        };
        if !agents.split(',').any(|a| a.trim() == participant.id) {
            findings.push(Finding {
                node: recorder.id.clone(),
                problem: format!(
                    "AGENTS does not list `{}`: the session's context would lack its notes",
                    participant.id
                ),
                fix: format!("AGENTS: {}, {}", agents.trim(), participant.id),
            });
        }
    }
}

/// A bridge with a `model` output is an input of a model host and takes its replies.
fn model_host_wiring(bridge: &Node, nodes: &[Node], findings: &mut Vec<Finding>) {
    let hosts: Vec<&Node> = nodes.iter().filter(|n| n.outputs("model_reply")).collect();
    let Some(host) = hosts
        .iter()
        .find(|h| h.takes(&format!("{}/model", bridge.id)))
        .or(hosts.first())
    else {
        findings.push(Finding {
            node: bridge.id.clone(),
            problem: "asks a model host (its `model` output), but the dataflow has none: it would never speak".into(),
            fix: format!(
                "a node `- id: model-host` (path ../target/release/model-host, outputs [model_reply]) with the input {0}: {{ source: {0}/model, queue_policy: backpressure }}",
                bridge.id
            ),
        });
        return;
    };
    if !host.takes(&format!("{}/model", bridge.id)) {
        findings.push(Finding {
            node: host.id.clone(),
            problem: format!(
                "does not take `{}`'s model requests: it would never speak",
                bridge.id
            ),
            fix: format!(
                "{0}: {{ source: {0}/model, queue_policy: backpressure }}",
                bridge.id
            ),
        });
    }
    let reply = format!("{}/model_reply", host.id);
    if !bridge.takes(&reply) {
        findings.push(Finding {
            node: bridge.id.clone(),
            problem: format!(
                "asks `{}` but does not take its replies: it would never speak",
                host.id
            ),
            fix: format!("model_reply: {{ source: {reply}, queue_policy: backpressure }}"),
        });
    }
}

/// Every input has `queue_policy: backpressure`.
fn queue_policies(nodes: &[Node], findings: &mut Vec<Finding>) {
    for node in nodes {
        // A timer's tick (`dora/timer/…`) is better dropped than delivered late.
        let unsafe_inputs = node
            .inputs
            .iter()
            .filter(|i| !i.backpressure && !i.source.starts_with("dora/"));
        for input in unsafe_inputs {
            findings.push(Finding {
                node: node.id.clone(),
                problem: format!(
                    "input `{}` has no `queue_policy: backpressure`: under load dora drops its oldest messages",
                    input.id
                ),
                fix: format!(
                    "{}: {{ source: {}, queue_policy: backpressure }}",
                    input.id, input.source
                ),
            });
        }
    }
}

fn node_of(value: &Value) -> Option<Node> {
    let id = value.get("id")?.as_str()?.to_owned();
    let program = value
        .get("path")
        .and_then(Value::as_str)
        .and_then(|p| p.rsplit(['/', '\\']).next())
        .unwrap_or_default()
        .trim_end_matches(".exe")
        .to_owned();
    let inputs = value
        .get("inputs")
        .and_then(Value::as_mapping)
        .map(|m| {
            m.iter()
                .filter_map(|(id, def)| {
                    let id = id.as_str()?.to_owned();
                    let (source, backpressure) = match def {
                        Value::String(source) => (source.clone(), false),
                        Value::Mapping(_) => (
                            def.get("source")?.as_str()?.to_owned(),
                            def.get("queue_policy").and_then(Value::as_str) == Some("backpressure"),
                        ),
                        _ => return None,
                    };
                    Some(Input {
                        id,
                        source,
                        backpressure,
                    })
                })
                .collect()
        })
        .unwrap_or_default();
    let outputs = value
        .get("outputs")
        .and_then(Value::as_sequence)
        .map(|s| {
            s.iter()
                .filter_map(|o| o.as_str().map(str::to_owned))
                .collect()
        })
        .unwrap_or_default();
    let env = value
        .get("env")
        .and_then(Value::as_mapping)
        .map(|m| {
            m.iter()
                .filter_map(|(k, v)| {
                    let v = match v {
                        Value::String(s) => s.clone(),
                        Value::Number(n) => n.to_string(),
                        Value::Bool(b) => b.to_string(),
                        _ => return None,
                    };
                    Some((k.as_str()?.to_owned(), v))
                })
                .collect()
        })
        .unwrap_or_default();
    Some(Node {
        id,
        program,
        inputs,
        outputs,
        env,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const WIRED: &str = r#"
nodes:
  - id: conference-controller
    path: ../target/release/conference-controller
    inputs:
      tutor: { source: tutor/text, queue_policy: backpressure }
      student1: { source: student1/text, queue_policy: backpressure }
    outputs: [turn, interrupt, prepare]
    env:
      DORA_POLICY_PATTERN: "[(human, 0.001), (tutor, *), (student1, 1)]"
  - id: tutor
    path: ../target/release/llm-bridge
    inputs:
      turn: { source: conference-controller/turn, queue_policy: backpressure }
    outputs: [text]
  - id: student1
    path: ../target/release/llm-bridge
    inputs:
      turn: { source: conference-controller/turn, queue_policy: backpressure }
    outputs: [text]
  - id: text-segmenter
    path: ../target/release/text-segmenter
    inputs:
      tutor: { source: tutor/text, queue_policy: backpressure }
      student1: { source: student1/text, queue_policy: backpressure }
    outputs: [segment]
  - id: recorder
    path: ../target/release/session-recorder
    inputs:
      turn: { source: conference-controller/turn, queue_policy: backpressure }
    env:
      AGENTS: tutor, student1
"#;

    #[test]
    fn a_wired_dataflow_has_no_finding() {
        assert_eq!(check(WIRED).unwrap(), []);
    }

    #[test]
    fn a_setting_its_program_does_not_read_is_named_with_the_one_it_meant() {
        let yaml = WIRED
            .replace("DORA_POLICY_PATTERN:", "DORA_POLICY_PATERN:")
            .replace(
                "      AGENTS: tutor, student1",
                "      AGENTS: tutor, student1\n      VOICE_MAP: tutor=af_heart\n      RUST_LOG: debug",
            );
        let findings = check(&yaml).unwrap();
        assert_eq!(findings.len(), 2, "{findings:?}");
        assert_eq!(findings[0].node, "conference-controller");
        assert!(
            findings[0]
                .problem
                .contains("did you mean `DORA_POLICY_PATTERN`"),
            "{}",
            findings[0].problem
        );
        assert!(findings[0].fix.starts_with("DORA_POLICY_PATTERN: [(human"));
        // A setting given to the wrong node: no close name, the node's own are listed.
        assert_eq!(findings[1].node, "recorder");
        assert!(findings[1].problem.contains("`VOICE_MAP`"));
        assert!(findings[1].fix.contains("AGENTS"), "{}", findings[1].fix);
        // A program that is not the project's is not judged.
        let foreign = yaml.replace("../target/release/session-recorder", "python");
        assert_eq!(check(&foreign).unwrap().len(), 1);
    }

    #[test]
    fn an_input_its_program_does_not_read_is_named() {
        // A misspelt id on the recorder, and the player's report wired to the controller
        // under a name it would take for a participant's.
        let yaml = WIRED
            .replace(
                "      turn: { source: conference-controller/turn, queue_policy: backpressure }\n    env:",
                "      turns: { source: conference-controller/turn, queue_policy: backpressure }\n    env:",
            )
            .replace(
                "      student1: { source: student1/text, queue_policy: backpressure }\n    outputs: [turn",
                "      student1: { source: student1/text, queue_policy: backpressure }\n      played: { source: tts/playback_done, queue_policy: backpressure }\n    outputs: [turn",
            );
        let findings = check(&yaml).unwrap();
        let named: Vec<(&str, bool)> = findings
            .iter()
            .map(|f| (f.node.as_str(), f.problem.contains("is not one")))
            .collect();
        assert_eq!(
            named,
            [("conference-controller", true), ("recorder", true)],
            "{findings:#?}"
        );
        assert!(
            findings[0]
                .problem
                .contains("`played` (from `tts/playback_done`)")
        );
        assert!(
            findings[0].fix.contains("`playback_done`"),
            "{}",
            findings[0].fix
        );
        assert!(findings[1].fix.contains("`turn`"), "{}", findings[1].fix);
    }

    #[test]
    fn a_participant_added_in_one_place_only_is_found_everywhere_it_lacks() {
        // student2 joins the pattern and gets its bridge, nothing else.
        let yaml = WIRED
            .replace("(student1, 1)]", "(student1, 1), (student2, 1)]")
            .replace(
                "  - id: text-segmenter",
                "  - id: student2\n    path: ../target/release/llm-bridge\n    inputs:\n      turn: conference-controller/turn\n    outputs: [text]\n  - id: text-segmenter",
            );
        let findings = check(&yaml).unwrap();
        let nodes: Vec<&str> = findings.iter().map(|f| f.node.as_str()).collect();
        assert_eq!(
            nodes,
            [
                "conference-controller",
                "text-segmenter",
                "recorder",
                "student2"
            ],
            "{findings:#?}"
        );
        assert_eq!(
            findings[0].fix,
            "student2: { source: student2/text, queue_policy: backpressure }"
        );
        assert_eq!(findings[2].fix, "AGENTS: tutor, student1, student2");
        assert_eq!(
            findings[3].fix,
            "turn: { source: conference-controller/turn, queue_policy: backpressure }"
        );
        assert!(findings[3].to_string().contains("drops its oldest"));
    }

    #[test]
    fn a_pattern_name_without_a_node_is_found() {
        let yaml = WIRED.replace("(student1, 1)]", "(student1, 1), (judge, 1)]");
        let findings = check(&yaml).unwrap();
        assert_eq!(findings.len(), 1, "{findings:#?}");
        assert!(findings[0].problem.contains("`judge`"), "{findings:#?}");
        // A human named as such is no node.
        let yaml = WIRED
            .replace("(student1, 1)]", "(student1, 1), (mia, 1)]")
            .replace(
                "DORA_POLICY_PATTERN",
                "HUMAN_PARTICIPANTS: mia\n      DORA_POLICY_PATTERN",
            );
        assert_eq!(check(&yaml).unwrap(), []);
    }

    #[test]
    fn a_timer_may_drop_its_ticks() {
        let yaml = WIRED.replace(
            "      turn: { source: conference-controller/turn, queue_policy: backpressure }
    env:",
            "      turn: { source: conference-controller/turn, queue_policy: backpressure }
      tick: dora/timer/millis/20
    env:",
        );
        // On a program of the user's own that reads it (the recorder does not).
        let yaml = yaml.replace("../target/release/session-recorder", "ticker.py");
        assert_eq!(check(&yaml).unwrap(), []);
    }

    #[test]
    fn a_bridge_that_asks_the_model_host_is_wired_to_it_both_ways() {
        let with_output = WIRED.replace(
            "      turn: { source: conference-controller/turn, queue_policy: backpressure }\n    outputs: [text]\n  - id: student1",
            "      turn: { source: conference-controller/turn, queue_policy: backpressure }\n      prepare: { source: conference-controller/prepare, queue_policy: backpressure }\n    outputs: [text, model]\n  - id: student1",
        );
        // No host at all.
        let findings = check(&with_output).unwrap();
        assert_eq!(findings.len(), 1, "{findings:#?}");
        assert_eq!(findings[0].node, "tutor");
        assert!(findings[0].fix.contains("model-host"), "{findings:#?}");
        // A host that does not take the tutor's requests, and a tutor deaf to its replies.
        let with_host = format!(
            "{with_output}  - id: model-host\n    path: ../target/release/model-host\n    outputs: [model_reply]\n"
        );
        let findings = check(&with_host).unwrap();
        let nodes: Vec<&str> = findings.iter().map(|f| f.node.as_str()).collect();
        assert_eq!(nodes, ["model-host", "tutor"], "{findings:#?}");
        assert_eq!(
            findings[0].fix,
            "tutor: { source: tutor/model, queue_policy: backpressure }"
        );
        assert_eq!(
            findings[1].fix,
            "model_reply: { source: model-host/model_reply, queue_policy: backpressure }"
        );
        // Wired both ways: nothing to add.
        let wired = with_host
            .replace(
                "    outputs: [model_reply]\n",
                "    inputs:\n      tutor: { source: tutor/model, queue_policy: backpressure }\n    outputs: [model_reply]\n",
            )
            .replace(
                "    outputs: [text, model]",
                "      model_reply: { source: model-host/model_reply, queue_policy: backpressure }\n    outputs: [text, model]",
            );
        assert_eq!(check(&wired).unwrap(), []);
    }

    #[test]
    fn a_bridge_the_controller_does_not_foretell_is_found() {
        let model = WIRED.replace(
            "      turn: { source: conference-controller/turn, queue_policy: backpressure }\n    outputs: [text]\n  - id: student1",
            "      turn: { source: conference-controller/turn, queue_policy: backpressure }\n      model_reply: { source: model-host/model_reply, queue_policy: backpressure }\n    outputs: [text, model]\n  - id: student1",
        ) + "  - id: model-host\n    path: ../target/release/model-host\n    inputs:\n      tutor: { source: tutor/model, queue_policy: backpressure }\n    outputs: [model_reply]\n";
        let findings = check(&model).unwrap();
        assert_eq!(findings.len(), 1, "{findings:#?}");
        assert_eq!(findings[0].node, "tutor");
        assert!(
            findings[0]
                .fix
                .starts_with("prepare: { source: conference-controller/prepare"),
            "{findings:#?}"
        );
        // A controller without the output: the same finding, which names it.
        let findings =
            check(&model.replace("[turn, interrupt, prepare]", "[turn, interrupt]")).unwrap();
        assert_eq!(findings.len(), 1, "{findings:#?}");
        assert!(
            findings[0]
                .fix
                .contains("`conference-controller`'s outputs")
        );
    }

    #[test]
    fn bad_input_is_an_error_not_a_panic() {
        assert!(matches!(check("nodes: 3"), Err(CheckError::NoNodes)));
        assert!(matches!(check(": : :"), Err(CheckError::Yaml(_))));
        let findings = check(&WIRED.replace("(tutor, *)", "(tutor, *")).unwrap();
        assert!(
            findings[0].problem.contains("does not parse"),
            "{findings:#?}"
        );
    }
}
