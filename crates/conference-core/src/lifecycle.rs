//! Inputs that close and nodes that restart: a participant skipped, a turn abandoned.

use crate::*;

impl Conference {
    /// A participant whose input closed is gone: skip it (and end its turn). The player's
    /// reports closing means nothing is heard any more: stop waiting for them.
    pub(super) fn on_input_closed(&mut self, input: &str, now: Duration, out: &mut Vec<Output>) {
        if input == voice_protocol::ids::PLAYBACK_DONE {
            if !self.player_gone {
                self.player_gone = true;
                self.unplayed.clear();
                out.push(Output::Notice(Notice::PlayerGone));
                if matches!(self.floor, Floor::AwaitingPlayback { .. }) {
                    self.give_next_turn(now, out);
                }
            }
            return;
        }
        let Some(index) = self.engine.index_of(input) else {
            return;
        };
        // Gone for good: not retried after a few turns like a silent one.
        self.timed_out.remove(&index);
        if self.engine.is_human(index) || !self.engine.set_absent(index, true) {
            return;
        }
        out.push(Output::Notice(Notice::Absent {
            speaker: input.to_owned(),
            reason: "its input closed".to_owned(),
        }));
        match &self.floor {
            Floor::Speaking(turn) if turn.index == index => self.abandon_turn(now, out),
            _ => out.push(Output::Status(self.status())),
        }
    }

    /// Ends the turn in progress, which will never be finished by its speaker (gone or
    /// restarted): what it said is kept, everything of it downstream is cancelled, and
    /// the next turn goes out.
    pub(super) fn abandon_turn(&mut self, now: Duration, out: &mut Vec<Output>) {
        let Floor::Speaking(turn) = std::mem::replace(&mut self.floor, Floor::Idle) else {
            return;
        };
        self.cut_short(turn, out);
        let question_id = self.next_question_id();
        out.push(Output::Interrupt {
            kind: InterruptKind::Cancel,
            question_id,
        });
        self.give_next_turn(now, out);
    }

    /// A restarted sender lost its work: a restarted participant's turn in progress will
    /// never end (its new process never saw it), so it ends now and the participant is
    /// present again; a restarted player will never report what it held.
    pub(super) fn on_restarted(&mut self, input: &str, now: Duration, out: &mut Vec<Output>) {
        if input == voice_protocol::ids::PLAYBACK_DONE {
            self.unplayed.clear();
            out.push(Output::Notice(Notice::PlayerRestarted));
            if matches!(self.floor, Floor::AwaitingPlayback { .. }) {
                self.give_next_turn(now, out);
            }
            return;
        }
        let Some(index) = self.engine.index_of(input) else {
            return;
        };
        if self.engine.is_human(index) {
            return;
        }
        self.timed_out.remove(&index);
        self.engine.set_absent(index, false);
        out.push(Output::Notice(Notice::ParticipantRestarted {
            speaker: input.to_owned(),
        }));
        match &self.floor {
            Floor::Speaking(turn) if turn.index == index => self.abandon_turn(now, out),
            Floor::Open => self.give_next_turn(now, out),
            _ => out.push(Output::Status(self.status())),
        }
    }
}
