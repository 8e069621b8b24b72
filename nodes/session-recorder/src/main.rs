//! `session-recorder`: prints who says what and writes `transcript.jsonl` and
//! `events.jsonl` into the session folder, one flushed line at a time, so a crash loses
//! nothing already said.
//!
//! Folder: see [`node_kit::session`].
//!
//! With `AGENTS` (agent names) and `AGENTS_ROOT` (the folder holding `templates/` and
//! `session-templates/`) the folder also holds the conversation's agent-context session,
//! `context/`, frozen at the end: see [`context`].
//!
//! Optional input `auction`: event records of a conductor (one JSON object each), written
//! to `events.jsonl` as they are with `t_ms` added.

mod codec;
mod context;
mod files;
mod settings;

use std::{collections::BTreeSet, time::Instant};

use conductor::Call;
use dora_node_api::DoraNode;
use eyre::Context;
use node_kit::conduct::{Conversions, Received};
use node_kit::decisions::{DecisionWriter, Recorded};
use session_log::{Observed, RECORDER_FORMAT, RecorderSetup};
use voice_protocol::ids;

fn main() -> eyre::Result<()> {
    node_kit::init_tracing();
    let (node, mut events) = DoraNode::init_from_env().context("failed to start the dora node")?;
    let dataflow_id = node.dataflow_id().to_string();
    let dir = node_kit::session::session_folder(&dataflow_id)?;
    // Spoken session (a `played` input from the player is wired): lines wait for what
    // was heard, unless `PACE_WITH_PLAYBACK` says otherwise.
    let wired = node
        .node_config()
        .inputs
        .keys()
        .any(|id| id.as_str() == ids::PLAYED);
    let settings = settings::Settings::from_env(wired)?;
    let agent_context = settings
        .agents
        .map(|agents| context::ContextSession::open(&dir, &dataflow_id, agents))
        .transpose()?;
    let mut files = files::Files::open(&dir, agent_context)?;
    tracing::info!(folder = %dir.display(), "recording the session");
    let setup = RecorderSetup {
        spoken: settings.paced,
    };
    let log = DecisionWriter::open(&dir, node.id().as_ref(), RECORDER_FORMAT, &setup);
    let mut recorder = Recorded::new(setup.build(), (), log);
    let sources = node_kit::InputSources::of(&node);
    let start = Instant::now();
    let now_ms = || start.elapsed().as_millis() as u64;
    let mut unknown_inputs = BTreeSet::new();
    let mut conversions = Conversions {
        decode: |received: Received<'_>| {
            let text = received.readable_text()?;
            codec::observed(received.id, received.params, text, &mut unknown_inputs)
        },
        restarted: |_: &str| None,
        closed: |id: &str| {
            (id == ids::PLAYED).then(|| {
                tracing::info!(
                    "the player's reports ended (stopped or gone); waiting lines are written now"
                );
                Observed::PlayerGone
            })
        },
        emit: |records: Vec<session_log::Record>| {
            records.iter().try_for_each(|record| files.write(record))
        },
    };
    node_kit::conduct::run(
        &mut recorder,
        &mut events,
        &sources,
        now_ms,
        &mut conversions,
    )?;
    for record in recorder.call(Call::Input(Observed::Ended), now_ms()) {
        files.write(&record)?;
    }
    files.finish();
    Ok(())
}
