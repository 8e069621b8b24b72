//! `moderator`: the roundtable moderator. Arrow in → [`moderator_core::Roundtable`] → Arrow
//! out.
//!
//! Inputs: one per agent of the scenario (its `text`), `reply*` (the agents' side-request
//! answers), optional `playback_done` (the player: pacing and the closing line heard),
//! optional `control` (`stats`, `stop`); the human at the table, optional:
//! `speech_started`, `backchannel` (the ASR bridge), `human` (its transcript),
//! `human_text` (typed), `playback_started` (what sounds, to be held).
//! Outputs: `turn`, `text` (the moderator's lines), `utterance`, `request`, `decision`,
//! `status`; `interrupt`, `pause`, `resume` with a human. See nodes/moderator/README.md.
//!
//! `moderator --bench [SESSIONS]` measures the decision time without dora.

mod bench;
mod codec;
mod settings;

use std::time::Instant;

use dora_node_api::DoraNode;
use eyre::{Context, eyre};
use node_kit::conduct::{Conversions, Ending};
use voice_protocol::ids;

use moderator_core::roundtable::{Input, ROUNDTABLE_FORMAT};
use node_kit::decisions::{DecisionWriter, Recorded};

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
    let (mut node, mut events) =
        DoraNode::init_from_env().context("failed to start the dora node")?;
    let playback_wired = node
        .node_config()
        .inputs
        .keys()
        .any(|id| id.as_str() == ids::PLAYBACK_DONE);
    let settings::Settings {
        scenario,
        setup,
        phrases_file,
    } = settings::from_env(playback_wired)?;
    tracing::info!(
        topic = %scenario.topic,
        agents = scenario.agents.len(),
        phases = scenario.phases.len(),
        paced = setup.config.paced,
        "moderator starting"
    );
    let sources = node_kit::InputSources::of(&node);
    let start = Instant::now();
    let now = || start.elapsed().as_millis() as u64;
    let (conductor, report) = setup
        .build_reporting()
        .map_err(|e| eyre!("invalid scenario: {e}"))?;
    if let Some(file) = &phrases_file {
        node_kit::conduct::report_phrases(file, &report);
    }
    // Every call of the conductor, recorded for `replay` (docs/SESSIONS.md, "Record
    // and replay").
    let folder = node_kit::session::session_folder(&node.dataflow_id().to_string())?;
    let log = DecisionWriter::open(&folder, node.id().as_ref(), ROUNDTABLE_FORMAT, &setup);
    let mut conductor = Recorded::new(conductor, (), log);
    let mut conversions = Conversions {
        decode: codec::decode,
        restarted: |input: &str| {
            Some(Input::Restarted {
                input: input.to_owned(),
            })
        },
        closed: |_: &str| None,
        emit: |out| codec::emit(&mut node, out),
    };
    let ending =
        node_kit::conduct::run(&mut conductor, &mut events, &sources, now, &mut conversions)?;
    if ending == Ending::Stopped {
        tracing::info!("stopped by dora before the roundtable ended");
    }
    tracing::info!(
        decisions = conductor.core.decisions(),
        phase = %conductor.core.phase(),
        "moderator stopped"
    );
    Ok(())
}
