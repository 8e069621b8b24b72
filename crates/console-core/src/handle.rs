//! The console as a [`conductor::Core`]: everything it decides on is one
//! [`ConsoleInput`], with the time.

use crate::{ClientId, Console, Data, Meta, PageOutput, Transport};

/// A dora input's payload, owned.
#[derive(Debug, Clone, PartialEq)]
pub enum Payload {
    Text(String),
    Samples(Vec<f32>),
    /// Neither text nor Float32 samples (or unreadable).
    Other,
}

/// Everything the console decides on.
#[derive(Debug, Clone, PartialEq)]
pub enum ConsoleInput {
    /// A dora input: its id, payload and metadata.
    Dora {
        id: String,
        payload: Payload,
        meta: Meta,
    },
    /// A page connected: it is sent the session so far.
    Connected(ClientId),
    /// A page's text frame (a command, typed words, the microphone asked for or let go).
    PageText { client: ClientId, text: String },
    /// A page's binary frame: its microphone.
    PageAudio { client: ClientId, frame: Vec<u8> },
    /// A page went away: its microphone is released.
    Disconnected(ClientId),
    /// The node's transport counts (sockets, queues), once a second: the stats panel
    /// goes out again.
    Transport(Transport),
}

impl conductor::Core for Console {
    type Input = ConsoleInput;
    type Output = PageOutput;
    type Opening = ();

    fn handle(&mut self, input: ConsoleInput, now_ms: u64) -> Vec<PageOutput> {
        match input {
            ConsoleInput::Dora { id, payload, meta } => {
                let data = match &payload {
                    Payload::Text(text) => Data::Text(text),
                    Payload::Samples(samples) => Data::Samples(samples),
                    Payload::Other => Data::Other,
                };
                self.input(&id, data, &meta, now_ms)
            }
            ConsoleInput::Connected(client) => self.connected(client),
            ConsoleInput::PageText { client, text } => self.page_text(client, &text, now_ms),
            ConsoleInput::PageAudio { client, frame } => self.page_audio(client, &frame, now_ms),
            ConsoleInput::Disconnected(client) => self.disconnected(client),
            ConsoleInput::Transport(transport) => {
                self.set_transport(transport);
                vec![PageOutput::Broadcast(self.stats_msg())]
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use conductor::Core;

    use super::*;
    use crate::Config;

    #[test]
    fn every_input_goes_through_handle() {
        let mut console = Console::new(Config::default());
        let hello = console.handle(ConsoleInput::Connected(1), 0);
        assert!(matches!(&hello[0], PageOutput::To(1, m) if m.contains("\"hello\"")));
        let line = console.handle(
            ConsoleInput::Dora {
                id: "utterance".into(),
                payload: Payload::Text("Limits are about closeness.".into()),
                meta: Meta {
                    speaker: Some("tutor".into()),
                    question_id: Some(1),
                    ..Meta::default()
                },
            },
            10,
        );
        assert!(!line.is_empty());
        assert_eq!(console.lines().count(), 1);
        let typed = console.handle(
            ConsoleInput::PageText {
                client: 1,
                text: r#"{"type":"say","text":"Why?"}"#.into(),
            },
            20,
        );
        assert!(
            typed
                .iter()
                .any(|o| matches!(o, PageOutput::Dora(crate::DoraOutput::HumanText { text, .. }) if text == "Why?")),
            "{typed:?}"
        );
        let stats = console.handle(
            ConsoleInput::Transport(Transport {
                clients: 1,
                frames_sent: 7,
                frames_dropped: 0,
            }),
            30,
        );
        assert!(
            matches!(&stats[..], [PageOutput::Broadcast(m)] if m.contains("\"frames_sent\":7"))
        );
        assert!(console.handle(ConsoleInput::Disconnected(1), 40).is_empty());
    }
}
