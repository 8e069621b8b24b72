//! Frames from the pages: commands, and the microphone with who holds it.

use serde_json::Value;

use crate::to_pages::{msg, notice};
use crate::*;

impl Console {
    /// One text frame from a page.
    pub fn page_text(&mut self, client: ClientId, text: &str, now: u64) -> Vec<PageOutput> {
        let message = match page::parse_client(text) {
            Ok(m) => m,
            Err(problem) => {
                self.rejected_page_messages += 1;
                return vec![PageOutput::To(client, notice(&problem))];
            }
        };
        match message {
            ClientMsg::Control(command) => {
                let mut out = vec![PageOutput::Dora(DoraOutput::Control(command.wire()))];
                if command == Command::Stats {
                    out.push(PageOutput::To(client, self.stats_msg()));
                }
                out
            }
            ClientMsg::Say(text) => {
                self.latency.human_words(true, now);
                vec![
                    PageOutput::Dora(DoraOutput::HumanText {
                        speaker: self.config.human_speaker.clone(),
                        text: text.clone(),
                    }),
                    PageOutput::To(client, msg("sent", serde_json::json!({ "text": text }))),
                ]
            }
            ClientMsg::Mic(true) => {
                if self.mic_holder.is_none_or(|h| h == client) {
                    self.mic_holder = Some(client);
                    vec![
                        PageOutput::To(client, self.mic_msg(client)),
                        PageOutput::Broadcast(msg(
                            "mic_state",
                            serde_json::json!({ "held": true }),
                        )),
                    ]
                } else {
                    vec![
                        PageOutput::To(client, self.mic_msg(client)),
                        PageOutput::To(client, notice("another page holds the microphone")),
                    ]
                }
            }
            ClientMsg::Mic(false) => {
                if self.mic_holder == Some(client) {
                    let mut out = self.release_mic(client);
                    out.push(PageOutput::To(client, self.mic_msg(client)));
                    out
                } else {
                    vec![PageOutput::To(client, self.mic_msg(client))]
                }
            }
            ClientMsg::Listen(on) => {
                if on {
                    self.listeners.insert(client);
                } else {
                    self.listeners.remove(&client);
                }
                vec![PageOutput::To(
                    client,
                    msg("listen", serde_json::json!({ "on": on })),
                )]
            }
            ClientMsg::Ping => vec![PageOutput::To(client, msg("pong", Value::Null))],
        }
    }

    /// One binary frame from a page: its microphone. Only the holder's frames pass.
    pub fn page_audio(&mut self, client: ClientId, frame: &[u8], now: u64) -> Vec<PageOutput> {
        if self.mic_holder != Some(client) {
            self.rejected_page_messages += 1;
            return vec![PageOutput::To(
                client,
                notice("audio ignored: this page does not hold the microphone"),
            )];
        }
        match page::decode_audio(frame) {
            Ok((sample_rate, samples)) => {
                let mut out = Vec::new();
                self.human_audio(&samples, now, &mut out);
                out.push(PageOutput::Dora(DoraOutput::Audio {
                    sample_rate,
                    samples,
                }));
                out
            }
            Err(problem) => {
                self.rejected_page_messages += 1;
                vec![PageOutput::To(client, notice(&problem))]
            }
        }
    }

    pub(crate) fn release_mic(&mut self, _client: ClientId) -> Vec<PageOutput> {
        self.mic_holder = None;
        let rate = 16_000u32;
        let samples = vec![0.0; (u64::from(rate) * self.config.release_silence_ms / 1000) as usize];
        let mut out = Vec::new();
        if !samples.is_empty() {
            out.push(PageOutput::Dora(DoraOutput::Audio {
                sample_rate: rate,
                samples,
            }));
        }
        out.push(PageOutput::Broadcast(msg(
            "mic_state",
            serde_json::json!({ "held": false }),
        )));
        out
    }
}
