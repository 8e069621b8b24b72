//! The one event loop of the nodes whose core waits on nothing but dora's events (the
//! conductors: controller, roundtable moderator, rehearsal moderator, auction; the
//! segmenter and the recorder), and the decoding their inputs share. A node supplies only its
//! conversions: Arrow to its core's input ([`Received`] → `Input`) and its outputs back
//! to Arrow; every decision, and every rule of time, is the core's and
//! [`conductor::tick_due`]'s, as in [`conductor::drive`].

use std::time::Duration;

use conductor::phrases::LoadReport;
use conductor::{Call, Core};
use dora_node_api::{DoraArray, Event, EventStream, MetadataParameters};
use serde::Serialize;
use voice_protocol::messages::{
    Chunk, Control, DecodeError, HeardSpan, Message, Meta, Reply, Transcript,
};

use crate::decisions::Recorded;
use crate::{DoraMeta, InputSources, Next, Payload, TextError, next_event};

/// The shortest wait for input between two ticks: a conductor that still asks for a
/// time already past after its tick is ticked again this often, not in a busy loop.
pub const MIN_WAIT: Duration = Duration::from_millis(2);

/// How a conductor node's loop ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ending {
    /// The conductor finished the conversation.
    Finished,
    /// Every input closed.
    Closed,
    /// dora stopped the node.
    Stopped,
}

/// A recorded conductor is a conductor: every call it passes on is written to the
/// decision log, so the loop below records what it does.
impl<C> Core for Recorded<C>
where
    C: Core,
    C::Input: Serialize + Clone,
    C::Output: std::fmt::Debug,
{
    type Input = C::Input;
    type Output = C::Output;
    /// The opening the conductor was recorded with.
    type Opening = ();

    fn start(&mut self, _: &(), now_ms: u64) -> Vec<C::Output> {
        self.call(Call::Start, now_ms)
    }

    fn handle(&mut self, input: C::Input, now_ms: u64) -> Vec<C::Output> {
        self.call(Call::Input(input), now_ms)
    }

    fn tick(&mut self, now_ms: u64) -> Vec<C::Output> {
        self.call(Call::Tick, now_ms)
    }

    fn next_wake(&self) -> Option<u64> {
        self.core.next_wake()
    }

    fn finished(&self) -> bool {
        self.core.finished()
    }
}

/// What a conductor node is made of besides its conductor: its conversions.
pub struct Conversions<D, R, K, E> {
    /// An input as the conductor's; `None` when it cannot be used (the function warns).
    pub decode: D,
    /// The input the core gets for each input an upstream node's restart broke off, if any.
    pub restarted: R,
    /// The input the conductor gets when an input closed (its sender is gone), if any.
    pub closed: K,
    /// Sends and writes what the conductor decided, in order.
    pub emit: E,
}

/// Runs a conductor node: starts the conductor, then, until it has finished, waits for
/// the next event at most until the conductor's next wake-up, ticks every wake-up due
/// before each input ([`conductor::tick_due`], at the time it is), and hands it the
/// decoded input. `now` is the node's clock in milliseconds of the run. Returns how the
/// loop ended; a failed emit ends it with that error.
pub fn run<C, D, R, K, E>(
    conductor: &mut C,
    events: &mut EventStream,
    sources: &InputSources,
    now: impl Fn() -> u64,
    conversions: &mut Conversions<D, R, K, E>,
) -> eyre::Result<Ending>
where
    C: Core<Opening = ()>,
    D: FnMut(Received<'_>) -> Option<C::Input>,
    R: FnMut(&str) -> Option<C::Input>,
    K: FnMut(&str) -> Option<C::Input>,
    E: FnMut(Vec<C::Output>) -> eyre::Result<()>,
{
    let emit = &mut conversions.emit;
    emit(conductor.start(&(), now()))?;
    loop {
        let t = now();
        let due = conductor::tick_due(conductor, t, |_| t);
        if !due.is_empty() {
            emit(due.into_iter().map(|(_, o)| o).collect())?;
        }
        if conductor.finished() {
            return Ok(Ending::Finished);
        }
        let wait = conductor
            .next_wake()
            .map(|wake| Duration::from_millis(wake.saturating_sub(now())).max(MIN_WAIT));
        let inputs: Vec<C::Input> = match next_event(events, wait) {
            Next::Closed => return Ok(Ending::Closed),
            Next::Timeout => continue,
            Next::Event(event) => match *event {
                Event::Input { id, metadata, data } => {
                    let received = Received {
                        id: id.as_str(),
                        params: &metadata.parameters,
                        data: &data,
                        sent: metadata.timestamp().get_time().to_system_time(),
                    };
                    match (conversions.decode)(received) {
                        Some(input) => vec![input],
                        None => continue,
                    }
                }
                Event::NodeRestarted { id } => {
                    tracing::warn!(node = %id, "an upstream node restarted");
                    sources
                        .fed_by(id.as_ref())
                        .filter_map(&mut conversions.restarted)
                        .collect()
                }
                Event::InputClosed { id } => {
                    tracing::debug!(input = %id, "input closed");
                    match (conversions.closed)(id.as_str()) {
                        Some(input) => vec![input],
                        None => continue,
                    }
                }
                Event::Stop(_) => return Ok(Ending::Stopped),
                Event::Error(e) => {
                    tracing::warn!(error = %e, "dora reported an error");
                    continue;
                }
                _ => continue,
            },
        };
        let t = now();
        let mut out: Vec<C::Output> = conductor::tick_due(conductor, t, |_| t)
            .into_iter()
            .map(|(_, o)| o)
            .collect();
        for input in inputs {
            out.extend(conductor.handle(input, t));
        }
        emit(out)?;
    }
}

/// The human's final words, as [`Received::human_words`] reads them.
#[derive(Debug, Clone, PartialEq)]
pub struct HumanWords {
    /// Their name, when the source gives one.
    pub speaker: Option<String>,
    pub text: String,
    /// When they were spoken, on their microphone's clock.
    pub heard: Option<HeardSpan>,
}

/// One dora input, as a conductor node decodes it.
#[derive(Clone, Copy)]
pub struct Received<'a> {
    pub id: &'a str,
    pub params: &'a MetadataParameters,
    pub data: &'a DoraArray,
    /// When the sender sent it (its dora timestamp).
    pub sent: std::time::SystemTime,
}

impl Received<'_> {
    /// When the sender sent it, in µs since the epoch.
    pub fn sent_us(&self) -> Option<i64> {
        let since_epoch = self.sent.duration_since(std::time::UNIX_EPOCH).ok();
        since_epoch.map(|d| d.as_micros() as i64)
    }

    /// The payload as text.
    pub fn text(&self) -> Result<String, TextError> {
        crate::text_of(self.data)
    }

    /// The payload as text; `None`, with a warning naming the input, when it is not.
    pub fn readable_text(&self) -> Option<String> {
        match self.text() {
            Ok(text) => Some(text),
            Err(e) => {
                tracing::warn!(input = self.id, error = %e, "unreadable input ignored");
                None
            }
        }
    }

    /// The human's final words (a transcript, or words typed on a page); `None`, with a
    /// warning, when they are unreadable, and when they are not final yet.
    pub fn human_words(&self) -> Option<HumanWords> {
        let text = self.readable_text()?;
        let transcript = match self.decode::<Transcript>() {
            Ok(transcript) => transcript,
            Err(e) => {
                tracing::warn!(input = self.id, error = %e, "unreadable transcript ignored");
                return None;
            }
        };
        if !transcript.is_final() {
            tracing::debug!(input = self.id, "words not final yet ignored");
            return None;
        }
        Some(HumanWords {
            speaker: transcript.speaker,
            text,
            heard: transcript.heard,
        })
    }

    /// The payload as a control command (its format reads the words); `None`, with a
    /// warning, when it is unreadable or empty.
    pub fn control_command(&self) -> Option<String> {
        match self.decode::<Control>() {
            Ok(control) => Some(control.command),
            Err(e) => {
                tracing::warn!(input = self.id, error = %e, "control input ignored");
                None
            }
        }
    }

    pub fn question_id(&self) -> Option<u64> {
        crate::question_id(self.params)
    }

    pub fn string(&self, key: &str) -> Option<String> {
        DoraMeta(self.params).text(key).map(str::to_owned)
    }

    /// The input as the protocol's message `M`.
    pub fn decode<M: Message>(&self) -> Result<M, DecodeError>
    where
        M::Payload: Payload,
    {
        crate::decode(self.params, self.data)
    }

    /// The input as a chunk of a speaker's streamed text; an unknown status is warned
    /// about and taken as a complete message.
    pub fn chunk(&self) -> Chunk {
        crate::read_chunk(self.id, self.params, self.data)
    }

    /// The input as a reply to a side request; `None`, with a warning, when its text
    /// cannot be read.
    pub fn reply(&self) -> Option<Reply> {
        match self.decode::<Reply>() {
            Ok(reply) => Some(reply),
            Err(e) => {
                tracing::warn!(input = self.id, error = %e, "unreadable input ignored");
                None
            }
        }
    }

    /// The input as a player's report on an utterance (`playback_started`,
    /// `playback_done`): the question id it names. Its payload is not read.
    pub fn played(&self) -> Option<u64> {
        self.question_id()
    }
}

/// Writes a core's notice to the log at its level.
pub fn log_notice(level: conductor::NoticeLevel, notice: &impl std::fmt::Display) {
    match level {
        conductor::NoticeLevel::Warning => tracing::warn!("{notice}"),
        conductor::NoticeLevel::Info => tracing::info!("{notice}"),
        conductor::NoticeLevel::Debug => tracing::debug!("{notice}"),
    }
}

/// The phrase library file named by `variable`, if set: its path and text.
pub fn read_phrases(variable: &str) -> eyre::Result<Option<(String, String)>> {
    let Some(path) = crate::env_opt(variable) else {
        return Ok(None);
    };
    let text = std::fs::read_to_string(&path)
        .map_err(|e| eyre::eyre!("cannot read the phrase library {path:?} ({variable}): {e}"))?;
    Ok(Some((path, text)))
}

/// Logs what a phrase library file (`source`) skipped, and the kinds it leaves to the
/// built-in lines in the language spoken.
pub fn report_phrases(source: &str, report: &LoadReport) {
    for w in &report.warnings {
        tracing::warn!(file = %source, "phrase library: {w}");
    }
    if !report.left_out.is_empty() {
        tracing::info!(file = %source, language = ?report.language, kinds = ?report.left_out, "phrase library leaves kinds out; the built-in lines say them");
    }
}

#[cfg(test)]
mod tests {
    use dora_node_api::Parameter;
    use dora_node_api::arrow_v59::array::{Int32Array, StringArray};
    use voice_protocol::{StreamStatus, keys};

    use super::*;

    fn params(entries: &[(&str, Parameter)]) -> MetadataParameters {
        entries
            .iter()
            .map(|(k, v)| ((*k).to_owned(), v.clone()))
            .collect()
    }

    fn text(s: &str) -> DoraArray {
        DoraArray::from_array(StringArray::from(vec![s]))
    }

    #[test]
    fn a_chunk_reads_its_status_id_and_error_and_an_unknown_status_completes_it() {
        let data = text("Hello.");
        let p = params(&[
            (keys::QUESTION_ID, Parameter::String(" 7 ".into())),
            (keys::STREAM_STATUS, Parameter::String("ongoing".into())),
        ]);
        let r = Received {
            id: "ann",
            params: &p,
            data: &data,
            sent: std::time::UNIX_EPOCH,
        };
        assert_eq!(r.readable_text().as_deref(), Some("Hello."));
        let chunk = r.chunk();
        assert_eq!(chunk.question_id, Some(7));
        assert_eq!(chunk.status, Some(StreamStatus::Ongoing));
        assert!(!chunk.ends());
        assert_eq!(chunk.error, None);
        let p = params(&[
            (keys::STREAM_STATUS, Parameter::String("finished?".into())),
            (keys::ERROR, Parameter::String("timeout".into())),
        ]);
        let r = Received {
            id: "ann",
            params: &p,
            data: &data,
            sent: std::time::UNIX_EPOCH,
        };
        let chunk = r.chunk();
        assert_eq!((chunk.status, chunk.ends()), (None, true));
        assert_eq!(chunk.error.as_deref(), Some("timeout"));
    }

    #[test]
    fn replies_and_reports_read_their_metadata_and_unreadable_data_is_none() {
        let data = DoraArray::from_array(Int32Array::from(vec![1]));
        let p = params(&[
            (keys::SPEAKER, Parameter::String("bo".into())),
            (keys::REQUEST_ID, Parameter::String("intent-3".into())),
            (keys::QUESTION_ID, Parameter::Integer(4)),
        ]);
        let r = Received {
            id: "reply_bo",
            params: &p,
            data: &data,
            sent: std::time::UNIX_EPOCH,
        };
        // A reply's text must be readable.
        assert_eq!(r.reply(), None);
        let text = text("yes");
        let r = Received {
            id: "reply_bo",
            params: &p,
            data: &text,
            sent: std::time::UNIX_EPOCH,
        };
        let reply = r.reply().unwrap();
        assert_eq!(reply.speaker.as_deref(), Some("bo"));
        assert_eq!(reply.request_id.as_deref(), Some("intent-3"));
        assert_eq!((reply.error, reply.text.as_str()), (None, "yes"));
        let r = Received {
            id: "reply_bo",
            params: &p,
            data: &data,
            sent: std::time::UNIX_EPOCH,
        };
        assert_eq!(r.played(), Some(4));
        assert!(r.text().is_err());
        assert_eq!(r.readable_text(), None);
    }

    #[test]
    fn an_input_tells_when_it_was_sent_in_microseconds_since_the_epoch() {
        let data = text("");
        let p = params(&[]);
        let at = |micros| Received {
            id: voice_protocol::ids::SPEECH_STARTED,
            params: &p,
            data: &data,
            sent: std::time::UNIX_EPOCH + Duration::from_micros(micros),
        };
        assert_eq!(at(1_500).sent_us(), Some(1_500));
        let before_the_epoch = Received {
            sent: std::time::UNIX_EPOCH - Duration::from_secs(1),
            ..at(0)
        };
        assert_eq!(before_the_epoch.sent_us(), None);
    }
}
