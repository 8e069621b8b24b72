//! The model host's decisions, without a model: which request may run the next decode
//! step ([`Gate`]), and how a sequence's cache turns into a new prompt with the least
//! reading ([`plan_reuse`]), and which cache sequence serves whom ([`Seats`]).
//!
//! One model serves every participant of a dataflow. Each request (a turn, a side
//! request, reading the conversation along) runs step by step (a prompt slice, one token),
//! and before each step it asks the gate, which lets the most urgent request go first: a
//! turn answering the human is never behind lower work for longer than one step.

mod cache;
mod gate;
mod seats;

pub use cache::{Reuse, Shift, apply, extends, outdated, plan_reuse};
pub use gate::{Gate, Priority, Ticket};
pub use seats::{Seated, Seats};
