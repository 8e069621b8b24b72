//! `moderator`: the roundtable moderator. Arrow in → [`moderator_core::conductor::Conductor`] (around
//! [`moderator_core::Roundtable`]) → Arrow out.
//!
//! Inputs: one per agent of the scenario (its `text`), `reply*` (the agents' side-request
//! answers), optional `playback_done` (the player: pacing and the closing line heard),
//! optional `control` (`stats`, `stop`).
//! Outputs: `turn`, `text` (the moderator's lines), `utterance`, `request`, `decision`,
//! `status`. See docs/ARCHITECTURE.md.
//!
//! `moderator --bench [SESSIONS]` measures the decision time without dora.

mod bench;

use std::time::{Duration, Instant};

use dora_node_api::{DoraNode, Event as DoraEvent, MetadataParameters};
use eyre::{Context, eyre};
use moderator_core::Scenario;
use moderator_core::phrases::{Language, RoundtablePhrases};
use node_kit::{Next, Params, next_event, session_status, text_of};
use voice_protocol::{SessionStatus, ids, keys};

use conductor::Call;
use conductor::phrases::PhraseKind;
use moderator_core::conductor::{
    Conductor, Config, Input, MODERATOR, Out, ROUNDTABLE_FORMAT, RoundtableSetup,
};
use moderator_core::phrases::Phrase;
use node_kit::decisions::{DecisionWriter, RecordedConductor};

fn main() -> eyre::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().is_some_and(|a| a == "--bench") {
        let sessions = match args.get(1) {
            Some(n) => n
                .parse()
                .map_err(|e| eyre!("--bench SESSIONS: {n:?} is not a count: {e}"))?,
            None => 2_000,
        };
        return bench::run(sessions);
    }
    node_kit::init_tracing();
    let (scenario, scenario_yaml) = load_scenario()?;
    let (mut node, mut events) =
        DoraNode::init_from_env().context("failed to start the dora node")?;
    let wired = node
        .node_config()
        .inputs
        .keys()
        .any(|id| id.as_str() == ids::PLAYBACK_DONE);
    let config = Config {
        paced: node_kit::env_parse("PACE_WITH_PLAYBACK", wired)?,
        max_unplayed: node_kit::env_parse("MAX_UNPLAYED_TURNS", 1usize)?,
        playback_timeout_ms: node_kit::env_secs("PLAYBACK_TIMEOUT_SECS", 30.0)?.as_millis() as u64,
    };
    tracing::info!(
        topic = %scenario.topic,
        agents = scenario.agents.len(),
        phases = scenario.phases.len(),
        paced = config.paced,
        "moderator starting"
    );
    let sources = node_kit::InputSources::of(&node);
    let start = Instant::now();
    let now = || start.elapsed().as_millis() as u64;
    let phrases = load_phrases(scenario.language)?;
    let conductor = Conductor::with_phrases(scenario, config, RoundtablePhrases::parse(&phrases).0);
    // Every call of the conductor, recorded for `replay` (docs/ARCHITECTURE.md, "Record
    // and replay").
    let folder = node_kit::session::session_folder(&node.dataflow_id().to_string())?;
    let setup = RoundtableSetup {
        scenario_yaml,
        config,
        phrases,
    };
    let log = DecisionWriter::open(&folder, node.id().as_ref(), ROUNDTABLE_FORMAT, &setup);
    let mut conductor = RecordedConductor::new(conductor, (), log);
    let out = conductor.call(Call::Start, now());
    emit(&mut node, out)?;
    while !conductor.conductor.finished() {
        let wait = conductor
            .conductor
            .next_wake()
            .map(|t| Duration::from_millis(t.saturating_sub(now())));
        let out = match next_event(&mut events, wait) {
            Next::Closed => break,
            Next::Timeout => conductor.call(Call::Tick, now()),
            Next::Event(event) => match *event {
                DoraEvent::NodeRestarted { id } => {
                    tracing::warn!(node = %id, "an upstream node restarted");
                    let restarted = sources.fed_by(id.as_ref()).map(|input| Input::Restarted {
                        input: input.to_owned(),
                    });
                    conductor.call_each(restarted, now())
                }
                DoraEvent::Input { id, metadata, data } => {
                    let params = &metadata.parameters;
                    let text = match text_of(&data) {
                        Ok(text) => text,
                        Err(e) if id.as_str() == ids::PLAYBACK_DONE => {
                            tracing::debug!(error = %e, "playback_done payload ignored");
                            String::new()
                        }
                        Err(e) => {
                            tracing::warn!(input = %id, error = %e, "unreadable input ignored");
                            // An `ended` chunk still ends the utterance.
                            if !matches!(session_status(params), Ok(Some(SessionStatus::Ended))) {
                                continue;
                            }
                            String::new()
                        }
                    };
                    match route(id.as_str(), params, text) {
                        Some(input) => conductor.call(Call::Input(input), now()),
                        None => continue,
                    }
                }
                DoraEvent::InputClosed { id } => {
                    tracing::debug!(input = %id, "input closed");
                    continue;
                }
                DoraEvent::Stop(_) => {
                    tracing::info!("stopped by dora before the roundtable ended");
                    break;
                }
                DoraEvent::Error(e) => {
                    tracing::warn!(error = %e, "dora reported an error");
                    continue;
                }
                _ => continue,
            },
        };
        emit(&mut node, out)?;
        // A busy input stream must not starve the deadlines.
        if conductor.conductor.next_wake().is_some_and(|t| t <= now()) {
            let out = conductor.call(Call::Tick, now());
            emit(&mut node, out)?;
        }
    }
    tracing::info!(
        decisions = conductor.conductor.roundtable().decisions(),
        phase = %conductor.conductor.roundtable().phase(),
        "moderator stopped"
    );
    Ok(())
}

/// The scenario file named by `SCENARIO` (and its text), with the file and the problem in
/// any error.
fn load_scenario() -> eyre::Result<(Scenario, String)> {
    let path = node_kit::env_opt("SCENARIO").ok_or_else(|| {
        eyre!(
            "SCENARIO is not set; point it at a scenario YAML file (e.g. scenarios/roundtable.yml)"
        )
    })?;
    let text = std::fs::read_to_string(&path)
        .with_context(|| format!("cannot read the scenario file {path:?} (SCENARIO)"))?;
    let scenario =
        Scenario::from_yaml(&text).map_err(|e| eyre!("invalid scenario file {path:?}: {e}"))?;
    Ok((scenario, text))
}

/// The phrase library named by `PHRASES` (its text; empty: the built-in lines), with
/// what it skipped reported as warnings.
fn load_phrases(language: Language) -> eyre::Result<String> {
    let Some(path) = node_kit::env_opt("PHRASES") else {
        return Ok(String::new());
    };
    let text = std::fs::read_to_string(&path)
        .with_context(|| format!("cannot read the phrase library {path:?} (PHRASES)"))?;
    let (library, warnings) = conductor::phrases::PhraseLibrary::<Phrase>::parse(&text);
    for w in warnings {
        tracing::warn!(file = %path, "phrase library: {w}");
    }
    let missing: Vec<&str> = <Phrase as PhraseKind>::all()
        .iter()
        .filter(|k| !library.has(language, **k))
        .map(|k| k.slug())
        .collect();
    if !missing.is_empty() {
        tracing::info!(file = %path, ?language, kinds = ?missing, "phrase library leaves kinds out; the built-in lines say them");
    }
    Ok(text)
}

/// Decodes one input for the conductor; `None` (with a warning) when it cannot be used.
fn route(id: &str, params: &MetadataParameters, text: String) -> Option<Input> {
    match id {
        ids::PLAYBACK_DONE => match node_kit::question_id(params) {
            Some(question_id) => Some(Input::Played { question_id }),
            None => {
                tracing::warn!("playback_done without question_id ignored");
                None
            }
        },
        ids::CONTROL => Some(Input::Control(text)),
        reply if reply.starts_with(ids::REPLY) => Some(Input::Reply {
            input: reply.to_owned(),
            speaker: node_kit::string_param(params, keys::SPEAKER).map(str::to_owned),
            request_id: node_kit::string_param(params, keys::REQUEST_ID).map(str::to_owned),
            answer: text,
            error: node_kit::string_param(params, keys::ERROR).map(str::to_owned),
        }),
        agent => {
            let status = session_status(params).unwrap_or_else(|raw| {
                tracing::warn!(input = agent, value = %raw, "unknown session_status; treating the message as complete");
                None
            });
            Some(Input::Text {
                input: agent.to_owned(),
                question_id: node_kit::question_id(params),
                ends: SessionStatus::ends_utterance(status),
                text,
                error: node_kit::string_param(params, keys::ERROR).map(str::to_owned),
            })
        }
    }
}

fn emit(node: &mut DoraNode, out: Vec<Out>) -> eyre::Result<()> {
    for message in out {
        match message {
            Out::Turn {
                agent,
                question_id,
                instruction,
            } => {
                let mut params = Params::new()
                    .question_id(question_id)
                    .string(keys::SPEAKER, agent.clone());
                if let Some(instruction) = instruction {
                    params = params.string(keys::INSTRUCTION, instruction);
                }
                node.send_output(ids::TURN.into(), params.build(), agent)?;
            }
            Out::Line {
                question_id,
                text,
                kind,
            } => {
                let params = Params::new()
                    .question_id(question_id)
                    .string(keys::SPEAKER, MODERATOR)
                    .string(keys::SESSION_STATUS, SessionStatus::Ended.as_str())
                    .string(keys::KIND, kind.as_str())
                    .build();
                node.send_output(ids::TEXT.into(), params, text)?;
            }
            Out::Utterance {
                speaker,
                question_id,
                text,
            } => {
                let params = Params::new()
                    .question_id(question_id)
                    .string(keys::SPEAKER, speaker)
                    .bool(keys::INTERRUPTED, false)
                    .bool(keys::IS_HUMAN, false)
                    .build();
                node.send_output(ids::UTTERANCE.into(), params, text)?;
            }
            Out::Request(json) => {
                node.send_output(ids::REQUEST.into(), Default::default(), json)?;
            }
            Out::Decision(json) => {
                node.send_output(ids::DECISION.into(), Default::default(), json)?;
            }
            Out::Status(json) => {
                node.send_output(ids::STATUS.into(), Default::default(), json)?;
            }
        }
    }
    Ok(())
}
