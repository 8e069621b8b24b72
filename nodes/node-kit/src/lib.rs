//! Dora glue shared by the node binaries. No decisions live here: only conversions
//! between Arrow/metadata and the core crates' plain types.

pub mod conduct;
pub mod decisions;
pub mod session;
pub mod testing;

use std::time::Duration;

use dora_node_api::{
    DoraArray, DoraNode, Event, EventStream, IntoArrow, MetadataParameters, Parameter,
    arrow_v59::{
        array::{Array, AsArray},
        datatypes::DataType,
    },
};
use futures::{StreamExt, future::Either};
pub use voice_protocol::messages::HeardSpan;
use voice_protocol::messages::{Chunk, DecodeError, Fields, Message, Meta, Value, ValueRef};

/// Logs to stderr (dora shows and stores it), level from `RUST_LOG` (default: `info`
/// for our nodes, errors only for dora's transport internals).
pub fn init_tracing() {
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info,zenoh=error"));
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_target(false)
        .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()))
        .with_writer(std::io::stderr)
        .try_init();
}

/// Why an input could not be read as text.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TextError {
    #[error("expected Utf8 text, got an array of {0}")]
    WrongType(String),
    #[error("the bytes are not valid UTF-8 ({0})")]
    NotUtf8(String),
}

/// Reads an input as text: Utf8/LargeUtf8/Utf8View arrays (elements joined without
/// separator, nulls skipped), or UTF-8 bytes (Binary or UInt8). Empty data is "".
pub fn text_of(data: &DoraArray) -> Result<String, TextError> {
    let array = data.as_array();
    let mut text = String::new();
    match array.data_type() {
        DataType::Null => {}
        DataType::Utf8 => array
            .as_string::<i32>()
            .iter()
            .flatten()
            .for_each(|s| text.push_str(s)),
        DataType::LargeUtf8 => array
            .as_string::<i64>()
            .iter()
            .flatten()
            .for_each(|s| text.push_str(s)),
        DataType::Utf8View => array
            .as_string_view()
            .iter()
            .flatten()
            .for_each(|s| text.push_str(s)),
        DataType::Binary => {
            for bytes in array.as_binary::<i32>().iter().flatten() {
                text.push_str(
                    std::str::from_utf8(bytes).map_err(|e| TextError::NotUtf8(e.to_string()))?,
                );
            }
        }
        DataType::LargeBinary => {
            for bytes in array.as_binary::<i64>().iter().flatten() {
                text.push_str(
                    std::str::from_utf8(bytes).map_err(|e| TextError::NotUtf8(e.to_string()))?,
                );
            }
        }
        DataType::UInt8 => {
            let bytes = array
                .as_primitive::<dora_node_api::arrow_v59::datatypes::UInt8Type>()
                .values();
            text.push_str(
                std::str::from_utf8(bytes).map_err(|e| TextError::NotUtf8(e.to_string()))?,
            );
        }
        other => return Err(TextError::WrongType(other.to_string())),
    }
    Ok(text)
}

/// dora's metadata parameters, read as the protocol's metadata.
#[derive(Clone, Copy)]
pub struct DoraMeta<'a>(pub &'a MetadataParameters);

impl Meta for DoraMeta<'_> {
    fn value(&self, key: &str) -> Option<ValueRef<'_>> {
        Some(match self.0.get(key)? {
            Parameter::Integer(n) => ValueRef::Int(*n),
            Parameter::String(s) => ValueRef::Text(s),
            Parameter::Bool(b) => ValueRef::Bool(*b),
            _ => ValueRef::Other,
        })
    }
}

/// A message's metadata as dora's parameters.
pub fn parameters(fields: &Fields) -> MetadataParameters {
    fields
        .iter()
        .map(|(key, value)| {
            let value = match value {
                Value::Int(n) => Parameter::Integer(*n),
                Value::Text(s) => Parameter::String(s.clone()),
                Value::Bool(b) => Parameter::Bool(*b),
            };
            (key.to_owned(), value)
        })
        .collect()
}

/// A message payload as Arrow: the one place the protocol's payload types meet dora's.
pub trait Payload: Sized {
    /// What is sent for it.
    type Arrow: IntoArrow;
    /// The payload in `data`, or why it is not one.
    fn read(data: &DoraArray) -> Result<Self, String>;
    fn into_arrow(self) -> Self::Arrow;
}

impl Payload for String {
    type Arrow = String;

    fn read(data: &DoraArray) -> Result<Self, String> {
        text_of(data).map_err(|e| e.to_string())
    }

    fn into_arrow(self) -> String {
        self
    }
}

/// Text that may not be readable: the message still counts (a stream's `ended`).
impl Payload for Result<String, String> {
    type Arrow = String;

    fn read(data: &DoraArray) -> Result<Self, String> {
        Ok(String::read(data))
    }

    fn into_arrow(self) -> String {
        self.unwrap_or_default()
    }
}

/// Audio samples, or why the data holds none: the message's metadata is judged first.
impl Payload for Result<Vec<f32>, String> {
    type Arrow = Vec<f32>;

    fn read(data: &DoraArray) -> Result<Self, String> {
        let array = data.as_array();
        Ok(
            match array.as_primitive_opt::<dora_node_api::arrow_v59::datatypes::Float32Type>() {
                Some(samples) => Ok(samples.values().to_vec()),
                None => Err(format!("audio must be Float32, not {}", array.data_type())),
            },
        )
    }

    fn into_arrow(self) -> Vec<f32> {
        self.unwrap_or_default()
    }
}

/// Sends `message` on its own output ([`Message::OUTPUT`]).
pub fn send<M: Message>(node: &mut DoraNode, message: M) -> eyre::Result<()>
where
    M::Payload: Payload,
{
    send_on(node, M::OUTPUT, message)
}

/// Sends the human's floor as the player takes it: `pause` (with the time of the first
/// sound that held it) or `resume`.
pub fn send_floor(node: &mut DoraNode, change: conductor::FloorChange) -> eyre::Result<()> {
    use voice_protocol::messages::{Pause, Resume};
    match change {
        conductor::FloorChange::Hold { onset_us } => send(
            node,
            Pause {
                onset_sent_us: onset_us,
            },
        ),
        conductor::FloorChange::Release => send(node, Resume),
    }
}

/// Sends `message` on `output`.
pub fn send_on<M: Message>(node: &mut DoraNode, output: &str, message: M) -> eyre::Result<()>
where
    M::Payload: Payload,
{
    let (fields, payload) = message.encode();
    let params = parameters(&fields);
    Ok(node.send_output(output.to_owned().into(), params, payload.into_arrow())?)
}

/// Reads a message from an input's metadata and data.
pub fn decode<M: Message>(params: &MetadataParameters, data: &DoraArray) -> Result<M, DecodeError>
where
    M::Payload: Payload,
{
    let payload = M::Payload::read(data).map_err(DecodeError::Payload)?;
    M::decode(&DoraMeta(params), payload)
}

/// The input `id` as a chunk of a speaker's streamed text. It never fails: an unreadable
/// text is kept as the chunk's `Err` (its status may still end a turn), and an unknown
/// status is warned about and taken as a complete message.
pub fn read_chunk(id: &str, params: &MetadataParameters, data: &DoraArray) -> Chunk {
    let chunk = decode::<Chunk>(params, data).unwrap_or_else(|e| Chunk {
        text: Err(e.to_string()),
        ..Chunk::default()
    });
    if let Some(raw) = &chunk.unknown_status {
        tracing::warn!(input = id, value = %raw, "unknown session_status; treating the message as complete");
    }
    chunk
}

/// `question_id` as an unsigned id (Integer, or a String of digits for hand-written inputs).
pub fn question_id(params: &MetadataParameters) -> Option<u64> {
    DoraMeta(params).question_id()
}

/// Which inputs each upstream node feeds, as `(source node id, input id)`: when dora
/// reports a node restarted (`Event::NodeRestarted`), these are the inputs whose streams
/// it broke off.
pub struct InputSources(Vec<(String, String)>);

impl InputSources {
    pub fn of(node: &dora_node_api::DoraNode) -> Self {
        Self(
            node.node_config()
                .inputs
                .iter()
                .filter_map(|(input, config)| {
                    let mapping = config.mapping.to_string();
                    let (source, _) = mapping.split_once('/')?;
                    Some((source.to_owned(), input.to_string()))
                })
                .collect(),
        )
    }

    /// The input ids fed by node `source`.
    pub fn fed_by<'a>(&'a self, source: &'a str) -> impl Iterator<Item = &'a str> + 'a {
        self.0
            .iter()
            .filter(move |(from, _)| from == source)
            .map(|(_, input)| input.as_str())
    }
}

/// What [`next_event`] got.
pub enum Next {
    Event(Box<Event>),
    Timeout,
    Closed,
}

/// Waits for the next event in arrival order (no reordering), at most `timeout`.
pub fn next_event(events: &mut EventStream, timeout: Option<Duration>) -> Next {
    let result = futures::executor::block_on(async {
        match timeout {
            None => Some(events.next().await),
            Some(t) => {
                match futures::future::select(events.next(), futures_timer::Delay::new(t)).await {
                    Either::Left((event, _)) => Some(event),
                    Either::Right(_) => None,
                }
            }
        }
    });
    match result {
        None => Next::Timeout,
        Some(None) => Next::Closed,
        Some(Some(event)) => Next::Event(Box::new(event)),
    }
}

/// Reads dora events on their own thread, so a node's main loop can also wait on other
/// channels (backends, timers) with `crossbeam_channel::select!`.
pub fn forward_events(mut events: EventStream) -> crossbeam_channel::Receiver<Event> {
    let (tx, rx) = crossbeam_channel::unbounded();
    std::thread::spawn(move || {
        loop {
            match next_event(&mut events, None) {
                Next::Event(event) => {
                    if tx.send(*event).is_err() {
                        break;
                    }
                }
                Next::Closed => break,
                Next::Timeout => {}
            }
        }
    });
    rx
}

/// Wall-clock milliseconds since the Unix epoch (0 if the clock is before it), for
/// records meant to be read next to other logs.
pub fn unix_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64)
}

/// Reads an environment variable; empty counts as unset.
pub fn env_opt(name: &str) -> Option<String> {
    std::env::var(name).ok().filter(|v| !v.trim().is_empty())
}

/// A file of the repository the running binary was built in
/// (`<repo>/target/<profile>/<binary>`): where setup.sh puts the default models.
pub fn repo_file(relative: &str) -> eyre::Result<std::path::PathBuf> {
    let exe = std::env::current_exe()
        .map_err(|e| eyre::eyre!("cannot find the binary's own path: {e}"))?;
    let root = exe
        .ancestors()
        .nth(3)
        .ok_or_else(|| eyre::eyre!("cannot find the repository from {}", exe.display()))?;
    Ok(root.join(relative))
}

/// A duration in seconds from env: a finite number above zero and at most a day.
/// Negative, zero, NaN and infinite values are an error naming the variable (they would
/// panic in `Duration::from_secs_f64` or wait forever).
pub fn env_secs(name: &str, default_secs: f64) -> eyre::Result<std::time::Duration> {
    let secs: f64 = env_parse(name, default_secs)?;
    secs_to_duration(secs).map_err(|e| eyre::eyre!("environment variable {name}={secs}: {e}"))
}

/// The validation behind [`env_secs`].
pub fn secs_to_duration(secs: f64) -> Result<std::time::Duration, String> {
    const DAY: f64 = 86_400.0;
    if secs.is_finite() && secs > 0.0 && secs <= DAY {
        Ok(std::time::Duration::from_secs_f64(secs))
    } else {
        Err(format!(
            "must be a number of seconds above 0 and at most {DAY}"
        ))
    }
}

/// Parses an optional environment variable, with a clear error naming it.
pub fn env_parse<T: std::str::FromStr>(name: &str, default: T) -> eyre::Result<T>
where
    T::Err: std::fmt::Display,
{
    match env_opt(name) {
        None => Ok(default),
        Some(raw) => raw
            .trim()
            .parse()
            .map_err(|e| eyre::eyre!("environment variable {name}={raw:?} is invalid: {e}")),
    }
}

/// A switch from env: `1`, `true`, `yes`, `on` or `0`, `false`, `no`, `off` (any case);
/// unset or empty is `default`; anything else is an error naming the variable.
pub fn env_flag(name: &str, default: bool) -> eyre::Result<bool> {
    match env_opt(name) {
        None => Ok(default),
        Some(raw) => parse_flag(&raw).ok_or_else(|| {
            eyre::eyre!("environment variable {name}={raw:?} must be 1 or 0 (true or false)")
        }),
    }
}

/// A switch from env as [`env_flag`] reads it; `None` when unset or empty (the node
/// decides from its wiring).
pub fn env_flag_opt(name: &str) -> eyre::Result<Option<bool>> {
    env_opt(name).map(|_| env_flag(name, false)).transpose()
}

fn parse_flag(raw: &str) -> Option<bool> {
    match raw.trim().to_ascii_lowercase().as_str() {
        "1" | "true" | "yes" | "on" => Some(true),
        "0" | "false" | "no" | "off" => Some(false),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_flag_is_a_yes_or_a_no_and_nothing_else() {
        for yes in ["1", "true", "TRUE", " yes ", "On"] {
            assert_eq!(parse_flag(yes), Some(true), "{yes:?}");
        }
        for no in ["0", "false", "No", "off"] {
            assert_eq!(parse_flag(no), Some(false), "{no:?}");
        }
        for neither in ["2", "y", "enabled", "-1"] {
            assert_eq!(parse_flag(neither), None, "{neither:?}");
        }
    }

    #[test]
    fn seconds_must_be_finite_positive_and_bounded() {
        assert_eq!(
            secs_to_duration(1.5),
            Ok(std::time::Duration::from_millis(1500))
        );
        for bad in [0.0, -1.0, f64::NAN, f64::INFINITY, f64::NEG_INFINITY, 1e300] {
            assert!(secs_to_duration(bad).is_err(), "{bad}");
        }
    }
}
