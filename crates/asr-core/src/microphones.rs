//! One human's microphones: an [`Endpointer`] (voice detector and turn decisions) per
//! audio input, so that two microphones never mix, and, once the player's voice comes in
//! as the reference, an [`EchoCanceller`] per microphone that hears the loudspeaker (a
//! browser page cancels its own echo: its input is left as it is).

use std::collections::{BTreeMap, BTreeSet};

use crate::{
    BackchannelConfig, VadConfig,
    echo::EchoCanceller,
    endpoint::{EndpointInput, EndpointOutput, Endpointer},
};

pub struct Microphones {
    vad: VadConfig,
    backchannels: BackchannelConfig,
    /// The microphones that hear the loudspeaker directly.
    echo_inputs: BTreeSet<String>,
    echo_tail_ms: u32,
    endpointers: BTreeMap<String, Endpointer>,
    /// `None` until the player's voice first comes in.
    cancellers: Option<BTreeMap<String, EchoCanceller>>,
}

impl Microphones {
    /// Microphones decided by `vad` and `backchannels`; those named in `echo_inputs`
    /// get their echo (of up to `echo_tail_ms`) taken out once a reference comes.
    pub fn new(
        vad: VadConfig,
        backchannels: BackchannelConfig,
        echo_inputs: impl IntoIterator<Item = String>,
        echo_tail_ms: u32,
    ) -> Self {
        Self {
            vad,
            backchannels,
            echo_inputs: echo_inputs.into_iter().collect(),
            echo_tail_ms,
            endpointers: BTreeMap::new(),
            cancellers: None,
        }
    }

    /// A block of `input`'s samples at the voice detector's rate: its echo taken out
    /// (when cancelled), then what its endpointer decides.
    pub fn audio(&mut self, input: &str, samples: &[f32]) -> Vec<EndpointOutput> {
        let (rate, tail_ms) = (self.vad.sample_rate, self.echo_tail_ms);
        let cleaned = self
            .cancellers
            .as_mut()
            .filter(|_| self.echo_inputs.contains(input))
            .map(|cancellers| {
                cancellers
                    .entry(input.to_owned())
                    .or_insert_with(|| EchoCanceller::new(rate, tail_ms))
                    .process(samples)
            });
        let endpointer = self.endpointer(input);
        endpointer.handle(EndpointInput::Audio(cleaned.as_deref().unwrap_or(samples)))
    }

    /// What the loudspeaker plays, at the voice detector's rate. True the first time:
    /// echo cancelling starts.
    pub fn reference(&mut self, played: &[f32]) -> bool {
        let first = self.cancellers.is_none();
        let (rate, tail_ms) = (self.vad.sample_rate, self.echo_tail_ms);
        let cancellers = self.cancellers.get_or_insert_with(BTreeMap::new);
        for input in self
            .endpointers
            .keys()
            .filter(|i| self.echo_inputs.contains(i.as_str()))
        {
            cancellers
                .entry(input.clone())
                .or_insert_with(|| EchoCanceller::new(rate, tail_ms));
        }
        for canceller in cancellers.values_mut() {
            canceller.push_reference(played);
        }
        first
    }

    /// Anything else for `input`'s endpointer (a recognized job, a dropped one, the end).
    pub fn handle(&mut self, input: &str, event: EndpointInput<'_>) -> Vec<EndpointOutput> {
        match self.endpointers.get_mut(input) {
            Some(endpointer) => endpointer.handle(event),
            None => Vec::new(),
        }
    }

    /// The audio inputs heard so far.
    pub fn inputs(&self) -> Vec<String> {
        self.endpointers.keys().cloned().collect()
    }

    /// Whether any input waits for recognized words.
    pub fn awaiting(&self) -> bool {
        self.endpointers.values().any(|e| e.awaiting() > 0)
    }

    fn endpointer(&mut self, input: &str) -> &mut Endpointer {
        let (vad, backchannels) = (self.vad, &self.backchannels);
        self.endpointers
            .entry(input.to_owned())
            .or_insert_with(|| Endpointer::new(vad, backchannels.clone()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const RATE: u32 = 16_000;

    fn tone(ms: u32) -> Vec<f32> {
        (0..RATE * ms / 1000)
            .map(|i| 0.3 * (i as f32 * 2.0 * std::f32::consts::PI * 220.0 / RATE as f32).sin())
            .collect()
    }

    fn mics() -> Microphones {
        Microphones::new(
            VadConfig::new(RATE),
            BackchannelConfig::default(),
            ["audio".to_owned()],
            200,
        )
    }

    fn started(out: &[EndpointOutput]) -> bool {
        out.iter()
            .any(|o| matches!(o, EndpointOutput::SpeechStarted { .. }))
    }

    #[test]
    fn two_microphones_never_mix() {
        let mut m = mics();
        let mut heard = false;
        for _ in 0..20 {
            heard |= started(&m.audio("audio", &tone(50)));
        }
        assert!(heard, "a voice on the first microphone starts speech");
        // The second microphone has its own detector: silence there starts nothing.
        for _ in 0..20 {
            assert!(!started(&m.audio("audio_console", &vec![0.0; 800])));
        }
        assert_eq!(m.inputs(), ["audio", "audio_console"]);
        assert!(m.handle("unknown", EndpointInput::Finish).is_empty());
    }

    #[test]
    fn the_loudspeakers_echo_is_no_voice_once_the_reference_comes() {
        // The microphone hears exactly what the loudspeaker plays.
        let mut m = mics();
        assert!(m.audio("audio", &vec![0.0; 800]).is_empty());
        assert!(
            m.reference(&vec![0.0; 800]),
            "the first reference starts cancelling"
        );
        let mut heard = false;
        for _ in 0..60 {
            let played = tone(50);
            assert!(!m.reference(&played));
            heard |= started(&m.audio("audio", &played));
        }
        assert!(!heard, "the echo was taken for the human's voice");
        // A browser page's input is left as it is: the same sound there is a voice.
        let mut heard = false;
        for _ in 0..60 {
            let played = tone(50);
            m.reference(&played);
            heard |= started(&m.audio("audio_console", &played));
        }
        assert!(heard);
    }
}
