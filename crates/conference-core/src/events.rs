//! What the conversation sends: participants' text, the human's words and speech, control
//! commands, and the interrupts they call for.

use crate::*;

impl Conference {
    /// Stops whoever is speaking; returns the interrupt's question id.
    pub(super) fn interrupt(&mut self, kind: InterruptKind, out: &mut Vec<Output>) -> u64 {
        // Everything generated so far is dropped downstream: nothing is left to hear.
        self.unplayed.clear();
        if let Floor::Speaking(turn) = std::mem::replace(&mut self.floor, Floor::Idle) {
            self.cut_short(turn, out);
        }
        let question_id = match kind {
            InterruptKind::Cancel => self.next_question_id(),
            InterruptKind::Reset => {
                self.engine.reset();
                self.next_question_id()
            }
        };
        out.push(Output::Interrupt { kind, question_id });
        question_id
    }

    pub(super) fn on_text(
        &mut self,
        from: String,
        text: String,
        status: Option<StreamStatus>,
        question_id: Option<u64>,
        now: Duration,
        out: &mut Vec<Output>,
    ) {
        let Some(index) = self.engine.index_of(&from) else {
            out.push(Output::Notice(Notice::UnknownParticipant { from }));
            return;
        };
        if self.engine.is_human(index) {
            if StreamStatus::ends_utterance(status) {
                self.on_human(from, text, None, now, out);
            }
            return;
        }
        // Anything from an absent participant, even late text, shows it is alive.
        self.timed_out.remove(&index);
        if self.engine.set_absent(index, false) {
            out.push(Output::Notice(Notice::Returned {
                speaker: from.clone(),
            }));
            out.push(Output::Status(self.status()));
            if matches!(self.floor, Floor::Open) {
                self.give_next_turn(now, out);
            }
        }
        let current = self.question_id;
        let turn = match &mut self.floor {
            Floor::Speaking(turn)
                if turn.index == index && question_id.is_none_or(|q| q == turn.question_id) =>
            {
                turn
            }
            Floor::Speaking(turn) if question_id.is_some_and(|q| q < turn.question_id) => {
                out.push(Output::Notice(Notice::Stale {
                    from,
                    question_id: question_id.unwrap_or_default(),
                    current: turn.question_id,
                }));
                return;
            }
            _ if question_id.is_some_and(|q| q < current) => {
                out.push(Output::Notice(Notice::Stale {
                    from,
                    question_id: question_id.unwrap_or_default(),
                    current,
                }));
                return;
            }
            Floor::Speaking(turn) => {
                let holder = format!("`{}`", self.engine.name(turn.index));
                out.push(Output::Notice(Notice::NotTheirTurn { from, holder }));
                return;
            }
            _ => {
                let holder = "nobody".to_owned();
                out.push(Output::Notice(Notice::NotTheirTurn { from, holder }));
                return;
            }
        };
        turn.heard = true;
        let words = count_words(&text);
        // Keep what fits; the words all count.
        if turn.text.push(&text) {
            out.push(Output::Notice(Notice::Truncated { speaker: from }));
        }
        self.engine.record_words(index, words);
        if StreamStatus::ends_utterance(status) {
            let Floor::Speaking(turn) = std::mem::replace(&mut self.floor, Floor::Idle) else {
                unreachable!("matched Speaking above");
            };
            let question_id = turn.question_id;
            let said_something = !turn.text.as_str().trim().is_empty();
            self.end_turn(turn, false, out);
            if said_something && self.config.max_unplayed.is_some() {
                self.unplayed.insert(question_id);
            }
            if self.too_much_unplayed() {
                self.floor = Floor::AwaitingPlayback { since: now };
                // While the human holds the floor, the answerer reads ahead for the
                // answer: a turn foretold now would take its place (said at the hold's
                // end if the human only nodded).
                if self.held_since.is_none() {
                    self.foretell_next_turn(out);
                }
                out.push(Output::Status(self.status()));
            } else {
                self.give_next_turn(now, out);
            }
        }
    }

    pub(super) fn on_human(
        &mut self,
        speaker: String,
        text: String,
        heard: Option<HeardSpan>,
        now: Duration,
        out: &mut Vec<Output>,
    ) {
        if text.trim().is_empty() {
            out.push(Output::Notice(Notice::EmptyHuman { speaker }));
            // A voice-activity start that produced no words: carry on.
            self.end_hold(now, out);
            return;
        }
        // A question: what was held is dropped by the reset below (one fade, already
        // heard when the hold began).
        self.held_since = None;
        self.turn_due = false;
        if let Floor::Speaking(turn) = std::mem::replace(&mut self.floor, Floor::Idle) {
            self.cut_short(turn, out);
        }
        self.unplayed.clear();
        self.engine.human_spoke(&speaker, count_words(&text));
        let question_id = self.next_question_id();
        out.push(Output::Interrupt {
            kind: InterruptKind::Reset,
            question_id,
        });
        let mut kept = conductor::Utterance::default();
        if kept.push(&text) {
            out.push(Output::Notice(Notice::Truncated {
                speaker: speaker.clone(),
            }));
        }
        out.push(Output::Utterance(Utterance {
            speaker,
            text: kept.into_string(),
            question_id,
            interrupted: false,
            human: true,
            heard,
        }));
        self.give_next_turn(now, out);
    }

    /// The human began to speak: the agents' voice is held (not dropped: a backchannel
    /// lets it go on) and no new turn starts. The turn in progress keeps generating, so
    /// that a resumed voice has its next words. Speech starting again during a hold
    /// (the human goes on after a pause) restarts the hold's limit.
    pub(super) fn on_speech_started(
        &mut self,
        onset_us: Option<i64>,
        now: Duration,
        out: &mut Vec<Output>,
    ) {
        if self.held_since.replace(now).is_none() {
            out.push(Output::Hold { onset_us });
            let human = (0..self.engine.names().len())
                .find(|&i| self.engine.is_human(i))
                .map_or(turn_policy::HUMAN, |i| self.engine.name(i));
            if let Some(index) = self.engine.answerer_if_human_spoke(human) {
                out.push(Output::Prepare {
                    speaker: self.engine.name(index).to_owned(),
                    ahead_of: PrepareFor::Answer,
                });
            }
        }
    }

    /// The hold ends without a question: the held voice plays on, and a turn that fell
    /// due meanwhile goes out.
    pub(super) fn end_hold(&mut self, now: Duration, out: &mut Vec<Output>) {
        if self.held_since.take().is_none() {
            return;
        }
        out.push(Output::Resume);
        if std::mem::take(&mut self.turn_due) {
            self.give_next_turn(now, out);
        } else if matches!(self.floor, Floor::AwaitingPlayback { .. }) {
            self.foretell_next_turn(out);
        } else if let Floor::Speaking(turn) = &mut self.floor {
            // Its speaker may have set it aside to read the answer meanwhile: it goes on
            // (nodes already at work on it ignore the repeat).
            turn.sent_at = now;
            out.push(Output::Turn {
                speaker: self.engine.name(turn.index).to_owned(),
                question_id: turn.question_id,
            });
        }
    }

    /// Says who will be handed the next turn while the voice catches up: that
    /// participant may read its turn ahead.
    fn foretell_next_turn(&mut self, out: &mut Vec<Output>) {
        if let Some(next) = self.engine.peek_next_turn() {
            out.push(Output::Prepare {
                speaker: self.engine.name(next).to_owned(),
                ahead_of: PrepareFor::Turn,
            });
        }
    }

    pub(super) fn on_control(
        &mut self,
        command: ControlCommand,
        now: Duration,
        out: &mut Vec<Output>,
    ) {
        match command {
            ControlCommand::Stats => out.push(Output::Status(self.status())),
            ControlCommand::Reset => {
                self.interrupt(InterruptKind::Reset, out);
                self.give_next_turn(now, out);
            }
            ControlCommand::Cancel => {
                // Paused: nothing starts when a hold ends either.
                self.turn_due = false;
                self.interrupt(InterruptKind::Cancel, out);
                out.push(Output::Status(self.status()));
            }
            ControlCommand::Ready => match &self.floor {
                // Repeat the current turn for a node that joined late; nodes ignore a
                // turn they already work on.
                Floor::Speaking(turn) => out.push(Output::Turn {
                    speaker: self.engine.name(turn.index).to_owned(),
                    question_id: turn.question_id,
                }),
                Floor::Idle | Floor::Open | Floor::AwaitingPlayback { .. } => {
                    self.give_next_turn(now, out)
                }
            },
        }
    }
}
