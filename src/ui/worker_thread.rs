//! The thread that owns the worker client: takes jobs from the UI, sends back every reply.
//! It only sends; the UI thread owns the state.

use super::event::{Job, UiEvent, WorkerEvent};
use crate::model::protocol::Request;
use crate::session::client::WorkerClient;
use crate::session::fold;
use std::sync::mpsc::{Sender, channel};

pub fn spawn(ui: Sender<UiEvent>, device: u32) -> Sender<Job> {
    let (tx, rx) = channel::<Job>();
    std::thread::spawn(move || {
        let mut client = WorkerClient::new();
        let ready = fold::hello(&mut client, device);
        if ui.send(UiEvent::Worker(WorkerEvent::Ready(ready))).is_err() {
            return;
        }
        while let Ok(job) = rx.recv() {
            let (id, req) = match job {
                Job::Run { lesson, options } => {
                    (lesson.id.clone(), Request::Run { lesson, options })
                }
                Job::Compile { lesson, arch } => {
                    (lesson.id.clone(), Request::Compile { lesson, arch })
                }
            };
            let outcome =
                client.request(&req, crate::session::client::default_stall_timeout(), |r| {
                    let _ = ui.send(UiEvent::Worker(WorkerEvent::Reply {
                        lesson: id.clone(),
                        reply: r.clone(),
                    }));
                });
            if ui
                .send(UiEvent::Worker(WorkerEvent::Finished {
                    lesson: id,
                    outcome,
                }))
                .is_err()
            {
                return;
            }
        }
    });
    tx
}
