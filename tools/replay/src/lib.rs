//! Replays the decision logs of a session folder (`decisions/<node-id>.jsonl`): each
//! recorded core is rebuilt from its setup (with overrides), fed the recorded inputs at
//! the recorded times, and its decisions compared with the recorded ones.

use std::path::{Path, PathBuf};

use agent_bridge::{BRIDGE_FORMAT, BridgeSetup};
use auction_core::{AUCTION_FORMAT, AuctionSetup};
use conductor::Call;
use conference_core::{self as controller, CONTROLLER_FORMAT, ControllerSetup};
use decision_log::{Comparison, Segment};
use moderator_core::roundtable::{ROUNDTABLE_FORMAT, RoundtableSetup};
use rehearsal_core::rehearsal::{self, REHEARSAL_FORMAT, RehearsalSetup};
use session_log::{RECORDER_FORMAT, RecorderSetup};
use text_segmenter::{SEGMENTER_FORMAT, SegmenterConfig, SegmenterCore};

#[derive(Debug, thiserror::Error)]
pub enum ReplayError {
    #[error("{path}: {problem}")]
    Read { path: PathBuf, problem: String },
    #[error("{0} holds no decision logs (decisions/*.jsonl)")]
    NoLogs(PathBuf),
    #[error("{node}: {problem}")]
    Setup { node: String, problem: String },
}

/// One node's log, replayed.
#[derive(Debug)]
pub struct NodeReplay {
    pub node: String,
    pub format: String,
    /// One comparison per setup line (a restarted node starts a new segment).
    pub segments: Vec<Comparison>,
}

impl NodeReplay {
    pub fn differs(&self) -> bool {
        self.segments.iter().any(|c| c.first_difference.is_some())
    }
}

/// Replays every decision log of `session` (or only `only_node`'s), with `overrides`
/// (`KEY=VALUE` settings by their environment names) applied to each setup.
pub fn replay_session(
    session: &Path,
    only_node: Option<&str>,
    overrides: &[(String, String)],
) -> Result<Vec<NodeReplay>, ReplayError> {
    replay_session_traced(session, only_node, overrides, &mut |_| {})
}

/// One call of a core as replayed, for [`replay_session_traced`].
#[derive(Debug, Clone, Copy)]
pub struct Replayed<'a> {
    pub node: &'a str,
    pub at_ns: u64,
    pub decisions: &'a [String],
}

/// [`replay_session`], showing `trace` every call replayed with the decisions it made
/// (up to and including the first difference).
pub fn replay_session_traced(
    session: &Path,
    only_node: Option<&str>,
    overrides: &[(String, String)],
    trace: &mut dyn FnMut(Replayed<'_>),
) -> Result<Vec<NodeReplay>, ReplayError> {
    let dir = session.join("decisions");
    let mut logs: Vec<PathBuf> = std::fs::read_dir(&dir)
        .map_err(|e| ReplayError::Read {
            path: dir.clone(),
            problem: e.to_string(),
        })?
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "jsonl"))
        .collect();
    logs.sort();
    let mut replays = Vec::new();
    for path in logs {
        let node = path
            .file_stem()
            .unwrap_or_default()
            .to_string_lossy()
            .into_owned();
        if only_node.is_some_and(|only| only != node) {
            continue;
        }
        let text = std::fs::read_to_string(&path).map_err(|e| ReplayError::Read {
            path: path.clone(),
            problem: e.to_string(),
        })?;
        replays.push(replay_log(&node, &text, overrides, trace).map_err(
            |problem| match problem {
                LogProblem::Read(problem) => ReplayError::Read {
                    path: path.clone(),
                    problem,
                },
                LogProblem::Setup(problem) => ReplayError::Setup {
                    node: node.clone(),
                    problem,
                },
            },
        )?);
    }
    if replays.is_empty() {
        return Err(ReplayError::NoLogs(session.to_path_buf()));
    }
    Ok(replays)
}

enum LogProblem {
    Read(String),
    Setup(String),
}

fn replay_log(
    node: &str,
    text: &str,
    overrides: &[(String, String)],
    trace: &mut dyn FnMut(Replayed<'_>),
) -> Result<NodeReplay, LogProblem> {
    let mut traced = |at_ns: u64, decisions: Vec<String>| {
        trace(Replayed {
            node,
            at_ns,
            decisions: &decisions,
        });
        decisions
    };
    let format = first_format(text).ok_or_else(|| LogProblem::Read("no setup line".into()))?;
    if format != CONTROLLER_FORMAT {
        refuse_overrides(&format, overrides)?;
    }
    let segments = match format.as_str() {
        CONTROLLER_FORMAT => replay_segments(
            text,
            &mut traced,
            |setup: &ControllerSetup| {
                let mut setup = setup.clone();
                for (key, value) in overrides {
                    setup.set(key, value).map_err(|e| e.to_string())?;
                }
                setup.build().map_err(|e| e.to_string())
            },
            // At the recorded millisecond, as the controller now takes its time (one
            // recorded before it ran as a conductor logged nanoseconds).
            |conference, call: &ControllerCall, at_ns| {
                let event = match call.clone() {
                    ControllerCall::Call(Call::Start) => controller::Input::Start,
                    ControllerCall::Call(Call::Tick) => controller::Input::Tick,
                    ControllerCall::Call(Call::Input(event)) | ControllerCall::Event(event) => {
                        event
                    }
                };
                conference.handle(event, at_ns / 1_000_000)
            },
        )?,
        ROUNDTABLE_FORMAT => {
            replay_core(text, &mut traced, |setup: &RoundtableSetup| setup.build())?
        }
        AUCTION_FORMAT => replay_core(text, &mut traced, |setup: &AuctionSetup| {
            setup.build().map_err(|e| e.to_string())
        })?,
        REHEARSAL_FORMAT => replay_segments(
            text,
            &mut traced,
            // The briefing the moderator opened with is part of its setup.
            |setup: &RehearsalSetup| {
                let conductor = setup.build().map_err(|e| e.to_string())?;
                Ok((conductor, setup.clone()))
            },
            |(conductor, setup), call: &Call<rehearsal::Input>, at_ns| {
                conductor::call(conductor, setup, call.clone(), at_ns / 1_000_000)
            },
        )?,
        SEGMENTER_FORMAT => replay_core(text, &mut traced, |config: &SegmenterConfig| {
            Ok(SegmenterCore::new(*config))
        })?,
        BRIDGE_FORMAT => replay_core(text, &mut traced, |setup: &BridgeSetup| Ok(setup.build()))?,
        RECORDER_FORMAT => {
            replay_core(text, &mut traced, |setup: &RecorderSetup| Ok(setup.build()))?
        }
        other => {
            return Err(LogProblem::Read(format!(
                "format `{other}` has no replay (known: {CONTROLLER_FORMAT}, {ROUNDTABLE_FORMAT}, {AUCTION_FORMAT}, {REHEARSAL_FORMAT}, {SEGMENTER_FORMAT}, {BRIDGE_FORMAT}, {RECORDER_FORMAT})"
            )));
        }
    };
    Ok(NodeReplay {
        node: node.to_owned(),
        format,
        segments,
    })
}

/// A step of the conference controller's log: a conductor's call, or, in a log recorded
/// before the controller ran as a conductor, the event it was handed (its own start and
/// ticks among them).
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
#[serde(untagged)]
enum ControllerCall {
    Call(Call<controller::Input>),
    Event(controller::Input),
}

/// Reads a log of setups `S` and inputs `I`, builds a fresh core per segment and compares
/// what `call` decides (shown to `traced`) with what was recorded.
fn replay_segments<S, I, C, O>(
    text: &str,
    traced: &mut impl FnMut(u64, Vec<String>) -> Vec<String>,
    build: impl Fn(&S) -> Result<C, String>,
    mut call: impl FnMut(&mut C, &I, u64) -> Vec<O>,
) -> Result<Vec<Comparison>, LogProblem>
where
    S: serde::de::DeserializeOwned,
    I: serde::de::DeserializeOwned + serde::Serialize,
    O: std::fmt::Debug,
{
    let segments: Vec<Segment<S, I>> =
        decision_log::read(text).map_err(|e| LogProblem::Read(e.to_string()))?;
    let mut comparisons = Vec::new();
    for segment in &segments {
        let mut core = build(&segment.setup).map_err(LogProblem::Setup)?;
        comparisons.push(decision_log::compare(segment, |input, at_ns| {
            traced(
                at_ns,
                decision_log::decisions(&call(&mut core, input, at_ns)),
            )
        }));
    }
    Ok(comparisons)
}

/// [`replay_segments`] for a core opened with nothing, called as its node calls it
/// ([`conductor::call`], at the recorded millisecond).
fn replay_core<S, C>(
    text: &str,
    traced: &mut impl FnMut(u64, Vec<String>) -> Vec<String>,
    build: impl Fn(&S) -> Result<C, String>,
) -> Result<Vec<Comparison>, LogProblem>
where
    S: serde::de::DeserializeOwned,
    C: conductor::Core<Opening = ()>,
    C::Input: serde::de::DeserializeOwned + serde::Serialize + Clone,
    C::Output: std::fmt::Debug,
{
    replay_segments(text, traced, build, |core, call: &Call<C::Input>, at_ns| {
        conductor::call(core, &(), call.clone(), at_ns / 1_000_000)
    })
}

/// The conductors' settings are files (scenario, auction config, panel), the segmenter's
/// and the bridges' are few or files too: no `--set` for them yet.
fn refuse_overrides(format: &str, overrides: &[(String, String)]) -> Result<(), LogProblem> {
    match overrides.first() {
        Some((key, _)) => Err(LogProblem::Setup(format!(
            "`{key}` cannot be changed for a {format} log (only the conference controller's settings can)"
        ))),
        None => Ok(()),
    }
}

fn first_format(text: &str) -> Option<String> {
    let first: serde_json::Value = serde_json::from_str(text.lines().next()?).ok()?;
    first["format"].as_str().map(str::to_owned)
}
