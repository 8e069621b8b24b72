//! What the core asks the model: this turn's plan and direction, the prompts read ahead,
//! the roster, the answers to side requests.

use super::*;

impl BridgeCore {
    /// This participant as the others know it.
    pub(super) fn me(&self) -> Participant {
        Participant::new(
            &self.persona.name,
            self.persona.spoken_name(),
            &self.persona.role,
        )
    }

    /// This turn's move and the director's words for it.
    pub(super) fn plan_turn(
        &self,
        question_id: u64,
        instruction: Option<&str>,
    ) -> (TurnPlan, String) {
        let me = self.me();
        let lines: Vec<Said> = self
            .history
            .entries()
            .map(|e| Said::new(&e.speaker, &e.text, e.human))
            .collect();
        let roster = self.roster();
        let input = PlanInput {
            me: &me,
            roster: &roster,
            lines: &lines,
            agenda: &self.agenda,
            question_id,
            instruction,
        };
        let plan = dialogue_planner::plan(&input);
        let direction = dialogue_planner::direction(&input, &plan);
        (plan, direction)
    }

    /// The persona a prompt starts with: the conductor's last context in place of the
    /// template's system prompt, once a conductor gave one, after the standing of every
    /// turn (who speaks with whom, and how: `dialogue_planner::standing`), which then
    /// stays read in a model's cache instead of being read again with each direction.
    pub(super) fn speaking_persona(&self) -> Persona {
        let mut persona = self.persona.clone();
        if let Some(context) = &self.conductor_context {
            persona.system_prompt = context.clone();
        }
        let standing = dialogue_planner::standing(&self.me(), &self.roster());
        persona.system_prompt = format!("{standing}\n\n{}", persona.system_prompt);
        persona
    }

    /// A turn's prompt: the conversation as `persona` hears it, then the director's
    /// words for this turn.
    pub(super) fn turn_prompt(&self, persona: &Persona, direction: &str) -> Prompt {
        let name_of = |id: &str| self.name_of(id);
        let mut prompt = self.history.prompt(persona, self.topic.as_deref(), name_of);
        prompt.requests.push(direction.to_owned());
        prompt
    }

    /// The turn that will answer the human who is still speaking, as far as it is known:
    /// the conversation so far and the direction of an answer (planned on a stand-in for
    /// their words, which it does not quote). The answer's prompt puts their words after
    /// both.
    pub(super) fn answer_ahead(&self) -> GenerationRequest {
        // The conversation as the human's words will leave it: the line held cut there.
        let mut heard = self.clone();
        if let Some((speaker, question_id, text)) = &self.ahead.held {
            heard.history.cut_to_heard(speaker, *question_id, text);
            heard.history.drop_queued(*question_id, u64::MAX);
        }
        let mut ahead = heard.clone();
        let mut stand_in = Entry::new(HUMAN_STAND_IN, "…", self.answered + 1);
        stand_in.human = true;
        ahead.history.push(stand_in);
        let (plan, direction) = ahead.plan_turn(self.answered + 2, None);
        let prompt = heard.turn_prompt(&self.speaking_persona(), &direction);
        GenerationRequest {
            question_id: self.answered,
            prompt,
            instruction: None,
            json: false,
            max_words: None,
            plan: Some(plan),
            opens_with: Vec::new(),
            takes_up: None,
            asks: false,
        }
    }

    /// This participant's next turn as it would be asked now, with the move the planner
    /// would choose (its question id guessed as the one after the last line's): read
    /// ahead, it leaves the turn one token to read when nothing more is said before it.
    pub(super) fn read_ahead(&self) -> GenerationRequest {
        let question_id = self
            .history
            .entries()
            .map(|e| e.question_id)
            .max()
            .unwrap_or(self.answered)
            .max(self.answered)
            + 1;
        let (plan, direction) = self.plan_turn(question_id, None);
        let prompt = self.turn_prompt(&self.speaking_persona(), &direction);
        GenerationRequest {
            question_id,
            prompt,
            instruction: None,
            json: false,
            max_words: None,
            plan: Some(plan),
            opens_with: Vec::new(),
            takes_up: None,
            asks: false,
        }
    }

    /// The others of this conversation: the agenda's participants, else those heard so far.
    pub(super) fn roster(&self) -> Vec<Participant> {
        let listed = self.agenda.participants();
        self.directory
            .iter()
            .filter(|p| p.id != self.persona.name)
            .filter(|p| {
                if listed.is_empty() {
                    self.history.entries().any(|e| e.speaker == p.id)
                } else {
                    listed.contains(&p.id)
                }
            })
            .cloned()
            .collect()
    }

    /// How the participant `id` is called in a transcript.
    pub(super) fn name_of(&self, id: &str) -> String {
        if id == self.persona.name {
            return self.persona.spoken_name().to_owned();
        }
        self.directory
            .iter()
            .find(|p| p.id == id)
            .map_or_else(|| id.to_owned(), |p| p.name.clone())
    }

    /// A side request's reply: its answer, or an empty text with why there is none (the
    /// conductor's heuristic decides then).
    pub(super) fn reply(
        &self,
        request: SideRequest,
        answer: Result<String, String>,
    ) -> BridgeOutput {
        let (text, error) = match answer {
            // A spoken answer that opens with a participant's label ("Skeptic: What …",
            // a model writing the transcript on) is said without it, whatever the backend.
            Ok(text) if !request.json => (self.without_label(&text), None),
            Ok(text) => (text, None),
            Err(error) => (String::new(), Some(error)),
        };
        BridgeOutput::Reply(Reply {
            request_id: Some(request.id),
            kind: Some(request.kind),
            speaker: Some(self.persona.name.clone()),
            error,
            text,
        })
    }

    /// `text` without a leading label naming a participant (its id, name or role, this
    /// participant's own included).
    pub(super) fn without_label(&self, text: &str) -> String {
        let own = [
            self.persona.name.as_str(),
            self.persona.spoken_name(),
            self.persona.role.as_str(),
        ];
        let labels: Vec<String> = own
            .into_iter()
            .chain(
                self.directory
                    .iter()
                    .flat_map(|p| [p.id.as_str(), p.name.as_str(), p.role.as_str()]),
            )
            .map(|l| l.trim().to_lowercase())
            .filter(|l| !l.is_empty())
            .collect();
        match crate::local::strip_tag(text, &labels) {
            // The rest of a bold label ("**Investor:** …") goes with it.
            Some(rest) if !rest.trim().is_empty() => rest
                .trim_start_matches(|c: char| c == '*' || c == '_' || c.is_whitespace())
                .to_owned(),
            _ => text.to_owned(),
        }
    }
}
