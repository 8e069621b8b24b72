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
use node_kit::{Next, Params, next_event, session_status, text_of};
use voice_protocol::{SessionStatus, ids, keys};

use moderator_core::conductor::{Conductor, Config, MODERATOR, Out};

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
    let scenario = load_scenario()?;
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
    let start = Instant::now();
    let now = || start.elapsed().as_millis() as u64;
    let mut conductor = Conductor::new(scenario, config);
    let out = conductor.start(now());
    emit(&mut node, out)?;
    while !conductor.finished() {
        let wait = conductor
            .next_wake()
            .map(|t| Duration::from_millis(t.saturating_sub(now())));
        let out = match next_event(&mut events, wait) {
            Next::Closed => break,
            Next::Timeout => conductor.tick(now()),
            Next::Event(event) => match *event {
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
                    route(&mut conductor, id.as_str(), params, &text, now())
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
        if conductor.next_wake().is_some_and(|t| t <= now()) {
            let out = conductor.tick(now());
            emit(&mut node, out)?;
        }
    }
    tracing::info!(
        decisions = conductor.roundtable().decisions(),
        phase = %conductor.roundtable().phase(),
        "moderator stopped"
    );
    Ok(())
}

/// The scenario file named by `SCENARIO`, with the file and the problem in any error.
fn load_scenario() -> eyre::Result<Scenario> {
    let path = node_kit::env_opt("SCENARIO").ok_or_else(|| {
        eyre!(
            "SCENARIO is not set; point it at a scenario YAML file (e.g. scenarios/roundtable.yml)"
        )
    })?;
    let text = std::fs::read_to_string(&path)
        .with_context(|| format!("cannot read the scenario file {path:?} (SCENARIO)"))?;
    Scenario::from_yaml(&text).map_err(|e| eyre!("invalid scenario file {path:?}: {e}"))
}

fn route(
    conductor: &mut Conductor,
    id: &str,
    params: &MetadataParameters,
    text: &str,
    now_ms: u64,
) -> Vec<Out> {
    match id {
        ids::PLAYBACK_DONE => match node_kit::question_id(params) {
            Some(question_id) => conductor.on_played(question_id, now_ms),
            None => {
                tracing::warn!("playback_done without question_id ignored");
                Vec::new()
            }
        },
        ids::CONTROL => conductor.on_control(text, now_ms),
        reply if reply.starts_with(ids::REPLY) => conductor.on_reply(
            reply,
            node_kit::string_param(params, keys::SPEAKER),
            node_kit::string_param(params, keys::REQUEST_ID),
            text,
            node_kit::string_param(params, keys::ERROR),
            now_ms,
        ),
        agent => {
            let status = session_status(params).unwrap_or_else(|raw| {
                tracing::warn!(input = agent, value = %raw, "unknown session_status; treating the message as complete");
                None
            });
            conductor.on_text(
                agent,
                node_kit::question_id(params),
                SessionStatus::ends_utterance(status),
                text,
                node_kit::string_param(params, keys::ERROR),
                now_ms,
            )
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
