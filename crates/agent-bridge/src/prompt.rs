//! A request's prompt as its parts (the persona, the conversation as heard, what this
//! call asks), which each backend renders its own way: a chat service as chat messages
//! ([`Prompt::chat_messages`]), the embedded model as a transcript with one request
//! ([`crate::local::LocalPrompt`]). Nothing is rendered to text and read back.

#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum ChatRole {
    System,
    User,
    Assistant,
}

impl ChatRole {
    pub fn as_str(self) -> &'static str {
        match self {
            ChatRole::System => "system",
            ChatRole::User => "user",
            ChatRole::Assistant => "assistant",
        }
    }
}

/// A chat-completions message.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct ChatMessage {
    pub role: ChatRole,
    pub content: String,
}

/// What a model is given for one request.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Prompt {
    /// The participant's persona (with the standing of every turn): who it is and how the
    /// conversation goes.
    pub persona: String,
    /// What the conversation is about, when the bridge was told.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub topic: Option<String>,
    /// The conversation as this participant heard it, oldest first.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub lines: Vec<PromptLine>,
    /// What this call asks: the director's words for a turn, a side request's prompt.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub requests: Vec<String>,
}

/// One line of the conversation as a participant heard it.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct PromptLine {
    /// The speaker as this participant calls them (itself by its spoken name).
    pub speaker: String,
    /// What was heard (a line cut short ends in " —").
    pub text: String,
    /// Said by this participant.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub own: bool,
}

impl PromptLine {
    pub fn new(speaker: impl Into<String>, text: impl Into<String>) -> Self {
        Self {
            speaker: speaker.into(),
            text: text.into(),
            own: false,
        }
    }

    /// The line in a transcript: `Speaker: text`.
    pub fn transcript(&self) -> String {
        format!("{}: {}", self.speaker, self.text)
    }
}

impl Prompt {
    /// The system prompt: the persona, then the topic.
    pub fn system(&self) -> String {
        let mut system = self.persona.trim().to_owned();
        if let Some(topic) = &self.topic {
            system.push_str(&format!("\nThe topic of this conversation: {topic}."));
        }
        system
    }

    /// The chat a chat model is given: the system prompt with how lines are attributed,
    /// the others' lines as the user's (`[name]: text`) and its own as the assistant's,
    /// then each request as a system message.
    pub fn chat_messages(&self, own_name: &str) -> Vec<ChatMessage> {
        let mut system = self.system();
        system.push_str(&format!(
            "\nYou are `{own_name}`. Other speakers' lines are shown as `[name]: text`. Reply with your own spoken words only, without a name tag."
        ));
        let mut messages = vec![ChatMessage {
            role: ChatRole::System,
            content: system,
        }];
        messages.extend(self.lines.iter().map(|line| match line.own {
            true => ChatMessage {
                role: ChatRole::Assistant,
                content: line.text.clone(),
            },
            false => ChatMessage {
                role: ChatRole::User,
                content: format!("[{}]: {}", line.speaker, line.text),
            },
        }));
        messages.extend(self.requests.iter().map(|request| ChatMessage {
            role: ChatRole::System,
            content: format!("For this turn: {request}"),
        }));
        messages
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_chat_model_gets_the_others_as_the_user_and_itself_as_the_assistant() {
        let prompt = Prompt {
            persona: "You are a tutor.".into(),
            topic: Some("calculus".into()),
            lines: vec![
                PromptLine::new("Ben", "What is a limit?"),
                PromptLine {
                    own: true,
                    ..PromptLine::new("Mia", "A value approached.")
                },
            ],
            requests: vec!["Give one example.".into()],
        };
        let chat = prompt.chat_messages("tutor");
        assert_eq!(chat.len(), 4);
        assert!(
            chat[0]
                .content
                .starts_with("You are a tutor.\nThe topic of this conversation: calculus.")
        );
        assert_eq!(chat[1].role, ChatRole::User);
        assert_eq!(chat[1].content, "[Ben]: What is a limit?");
        assert_eq!(chat[2].role, ChatRole::Assistant);
        assert_eq!(chat[2].content, "A value approached.");
        assert_eq!(chat[3].content, "For this turn: Give one example.");
    }

    proptest::proptest! {
        /// Both renderings hold every line, in order, and every request, whatever the
        /// words (colons, brackets and "For this turn:" included): nothing is read back.
        #[test]
        fn every_backend_is_given_every_part(
            lines in proptest::collection::vec(("[A-Za-z]{1,8}", "[a-z:\\[\\] ]{1,30}", proptest::bool::ANY), 0..6),
            requests in proptest::collection::vec("(For this turn: )?[a-z ]{1,20}", 0..3),
        ) {
            let prompt = Prompt {
                persona: "You are Mia.".into(),
                topic: None,
                lines: lines
                    .iter()
                    .map(|(who, text, own)| PromptLine { speaker: who.clone(), text: text.clone(), own: *own })
                    .collect(),
                requests: requests.clone(),
            };
            let chat = prompt.chat_messages("mia");
            proptest::prop_assert_eq!(chat.len(), 1 + lines.len() + requests.len());
            for (message, line) in chat[1..].iter().zip(&prompt.lines) {
                proptest::prop_assert!(message.content.ends_with(&line.text));
            }
            let local = crate::local::LocalPrompt::new(&prompt);
            proptest::prop_assert_eq!(&local.lines, &prompt.lines);
            let requests: Vec<String> = requests.iter().map(|r| r.trim().to_owned()).collect();
            proptest::prop_assert_eq!(&local.requests, &requests);
            let shown = local.to_messages(false);
            let mut at = 0;
            for line in &prompt.lines {
                let found = shown[0].content[at..].find(&line.transcript());
                proptest::prop_assert!(found.is_some(), "{} not in order", line.transcript());
                at += found.unwrap();
            }
        }
    }
}
