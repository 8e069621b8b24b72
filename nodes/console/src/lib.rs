//! The console node's server side and page fan-out, shared by the node's event loop
//! (`src/main.rs`) and its benchmark (`tools/console-bench`).

pub mod server;

use std::collections::HashMap;

use axum::extract::ws::Message;
use console_core::{ClientId, PageOutput, Transport};
use tokio::sync::mpsc::{Sender, error::TrySendError};

/// What the server thread tells the loop.
pub enum PageEvent {
    Connected { id: ClientId, tx: Sender<Message> },
    Text { id: ClientId, text: String },
    Binary { id: ClientId, bytes: Vec<u8> },
    Closed { id: ClientId },
}

/// The pages' queues and the transport counts.
#[derive(Default)]
pub struct Pages {
    clients: HashMap<ClientId, Sender<Message>>,
    sent: u64,
    dropped: u64,
}

impl Pages {
    pub fn insert(&mut self, id: ClientId, tx: Sender<Message>) {
        self.clients.insert(id, tx);
    }

    pub fn remove(&mut self, id: ClientId) {
        self.clients.remove(&id);
    }

    pub fn len(&self) -> usize {
        self.clients.len()
    }

    pub fn is_empty(&self) -> bool {
        self.clients.is_empty()
    }

    /// Puts a page-bound output on the queues of the pages it is for; never waits.
    pub fn deliver(&mut self, out: PageOutput) {
        match out {
            PageOutput::Broadcast(json) => self.broadcast(Message::Text(json.into())),
            PageOutput::To(id, json) => self.send(id, Message::Text(json.into())),
            PageOutput::Audio { frame, to } => {
                let frame = Message::Binary(frame.into());
                for id in to {
                    self.send(id, frame.clone());
                }
            }
            PageOutput::Dora(_) | PageOutput::Warning(_) => {}
        }
    }

    pub fn transport(&self) -> Transport {
        Transport {
            clients: self.clients.len(),
            frames_sent: self.sent,
            frames_dropped: self.dropped,
        }
    }

    fn send(&mut self, id: ClientId, message: Message) {
        let Some(tx) = self.clients.get(&id) else {
            return;
        };
        match tx.try_send(message) {
            Ok(()) => self.sent += 1,
            Err(TrySendError::Full(_)) => self.dropped += 1,
            Err(TrySendError::Closed(_)) => {
                self.clients.remove(&id);
            }
        }
    }

    fn broadcast(&mut self, message: Message) {
        let ids: Vec<ClientId> = self.clients.keys().copied().collect();
        for id in ids {
            self.send(id, message.clone());
        }
    }
}
