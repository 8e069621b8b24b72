//! `moderator`: the roundtable moderator. Arrow in → [`moderator_core::Roundtable`] → Arrow
//! out.
//!
//! Inputs: one per agent of the scenario (its `text`), `reply*` (the agents' side-request
//! answers), optional `playback_done` (the player: pacing and the closing line heard),
//! optional `control` (`stats`, `stop`).
//! Outputs: `turn`, `text` (the moderator's lines), `utterance`, `request`, `decision`,
//! `status`. See docs/ARCHITECTURE.md.
//!
//! `moderator --bench [SESSIONS]` measures the decision time without dora.

mod bench;

use std::time::Instant;

use dora_node_api::DoraNode;
use eyre::{Context, eyre};
use moderator_core::Scenario;
use node_kit::conduct::{Conversions, Ending, Received};
use voice_protocol::messages::{Chunk, Plain, Turn, Utterance};
use voice_protocol::{StreamStatus, ids};

use moderator_core::roundtable::{
    Config, Input, MODERATOR, Output, ROUNDTABLE_FORMAT, RoundtableSetup,
};
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
    // The phrase library `PHRASES` names (none: the built-in lines), read here and
    // loaded once, by the setup the replay builds from too.
    let phrases = node_kit::conduct::read_phrases("PHRASES")?;
    let setup = RoundtableSetup {
        scenario_yaml,
        config,
        phrases: phrases
            .as_ref()
            .map(|(_, text)| text.clone())
            .unwrap_or_default(),
    };
    let (conductor, report) = setup
        .build_reporting()
        .map_err(|e| eyre!("invalid scenario: {e}"))?;
    if let Some((path, _)) = &phrases {
        node_kit::conduct::report_phrases(path, &report);
    }
    // Every call of the conductor, recorded for `replay` (docs/ARCHITECTURE.md, "Record
    // and replay").
    let folder = node_kit::session::session_folder(&node.dataflow_id().to_string())?;
    let log = DecisionWriter::open(&folder, node.id().as_ref(), ROUNDTABLE_FORMAT, &setup);
    let mut conductor = RecordedConductor::new(conductor, (), log);
    let mut conversions = Conversions {
        decode,
        restarted: |input: &str| Input::Restarted {
            input: input.to_owned(),
        },
        closed: |_: &str| None,
        emit: |out| emit(&mut node, out),
    };
    let ending =
        node_kit::conduct::run(&mut conductor, &mut events, &sources, now, &mut conversions)?;
    if ending == Ending::Stopped {
        tracing::info!("stopped by dora before the roundtable ended");
    }
    tracing::info!(
        decisions = conductor.conductor.decisions(),
        phase = %conductor.conductor.phase(),
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

/// Decodes one input for the conductor; `None` (with a warning) when it cannot be used.
fn decode(input: Received<'_>) -> Option<Input> {
    match input.id {
        // Its payload is not read.
        ids::PLAYBACK_DONE => match input.played() {
            Some(question_id) => Some(Input::Played { question_id }),
            None => {
                tracing::warn!("playback_done without question_id ignored");
                None
            }
        },
        ids::CONTROL => input.readable_text().map(Input::Control),
        reply if reply.starts_with(ids::REPLY) => {
            let meta = input.reply()?;
            Some(Input::Reply {
                input: reply.to_owned(),
                speaker: meta.speaker,
                request_id: meta.request_id,
                answer: meta.text,
                error: meta.error,
            })
        }
        agent => {
            let chunk = input.chunk();
            let ends = chunk.ends();
            let text = match chunk.text {
                Ok(text) => text,
                Err(e) => {
                    tracing::warn!(input = agent, error = %e, "unreadable input ignored");
                    // An `ended` chunk still ends the utterance.
                    if chunk.status != Some(StreamStatus::Ended) {
                        return None;
                    }
                    String::new()
                }
            };
            Some(Input::Text {
                input: agent.to_owned(),
                question_id: chunk.question_id,
                ends,
                text,
                error: chunk.error,
            })
        }
    }
}

fn emit(node: &mut DoraNode, out: Vec<Output>) -> eyre::Result<()> {
    for message in out {
        match message {
            Output::Turn {
                agent,
                question_id,
                instruction,
            } => {
                let turn = Turn {
                    question_id,
                    speaker: agent,
                    instruction,
                    ..Turn::default()
                };
                node_kit::send(node, turn)?;
            }
            Output::Line {
                question_id,
                text,
                kind,
            } => {
                let line = Chunk {
                    kind: Some(kind.as_str().to_owned()),
                    ..Chunk::line(question_id, MODERATOR, text)
                };
                node_kit::send(node, line)?;
            }
            Output::Utterance {
                speaker,
                question_id,
                text,
            } => {
                let utterance = Utterance {
                    question_id,
                    speaker,
                    text,
                    ..Utterance::default()
                };
                node_kit::send(node, utterance)?;
            }
            Output::Request(request) => node_kit::send(node, request)?,
            Output::Decision(json) => node_kit::send_on(node, ids::DECISION, Plain(json))?,
            Output::Status(json) => node_kit::send_on(node, ids::STATUS, Plain(json))?,
        }
    }
    Ok(())
}
