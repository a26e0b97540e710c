//! `ketama.SetWriter`: the write recipe of an add/remove payload.

use std::sync::{Mutex, PoisonError};

use pyo3::prelude::*;
use pyo3::types::PyTuple;

use ketama_core::registry::Named;
use ketama_core::setcodec::Op;
use ketama_core::setcodec::recipe::{DEFAULT_MAX_RETRIES, Reply, SetAction, WriteAction, Writer};

use crate::errors::{OrRaise, closed};
use crate::names::variant_of;

/// An action as the binding spells it: its C constant's name after
/// `KETAMA_SET_DO_` or `KETAMA_SET_`, in lower case ("append", "probe",
/// "done_created"): whether an action is an outcome is in that name.
fn action_name(action: WriteAction) -> String {
    let constant = SetAction::from(action).c_name();
    let rest = ["KETAMA_SET_DO_", "KETAMA_SET_"]
        .iter()
        .find_map(|prefix| constant.strip_prefix(prefix))
        .unwrap_or(constant);
    rest.to_ascii_lowercase()
}

/// The write recipe for an add/remove payload: `action` says what to send
/// ("append", "add", "probe") until it is "done_..."; feed each server
/// reply ("stored", "not_stored", "exists", "not_found", "too_large") to
/// step().
#[pyclass(module = "ketama", name = "SetWriter", frozen)]
pub struct SetWriter {
    state: Mutex<(Option<Writer>, String)>,
}

#[pymethods]
impl SetWriter {
    /// SetWriter(op="add", max_retries=0): 0 retries means the library's
    /// default (3 append/add rounds before probing).
    #[new]
    #[pyo3(signature = (op=None, max_retries=0))]
    fn new(op: Option<&Bound<'_, PyAny>>, max_retries: u32) -> PyResult<SetWriter> {
        let op = match op {
            Some(op) if !op.is_none() => variant_of::<Op>(op, "op")?,
            _ => Op::Add,
        };
        let retries = if max_retries == 0 {
            DEFAULT_MAX_RETRIES
        } else {
            max_retries
        };
        let writer = Writer::new(op, retries);
        let action = action_name(writer.first());
        Ok(SetWriter {
            state: Mutex::new((Some(writer), action)),
        })
    }

    /// What to do next: "append", "add", "probe", or how the write ended
    /// ("done_appended", "done_created", "done_nothing_to_remove").
    #[getter]
    fn action(&self) -> String {
        self.state
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .1
            .clone()
    }

    /// Whether the write is finished.
    #[getter]
    fn done(&self) -> bool {
        self.action().starts_with("done")
    }

    /// Advances with the server's reply; returns (and stores) the next action.
    fn step(&self, py: Python<'_>, reply: &Bound<'_, PyAny>) -> PyResult<String> {
        let reply = variant_of::<Reply>(reply, "reply")?;
        // The lock is released before an error is raised (Python code).
        let stepped = {
            let mut state = self.state.lock().unwrap_or_else(PoisonError::into_inner);
            let writer = state.0.as_mut().ok_or_else(|| closed("SetWriter"))?;
            let stepped = writer.on_reply(reply).map(action_name);
            if let Ok(next) = &stepped {
                state.1.clone_from(next);
            }
            stepped
        };
        stepped.or_raise(py)
    }

    /// Whether close() was called.
    #[getter]
    fn closed(&self) -> bool {
        self.state
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .0
            .is_none()
    }

    /// Releases the writer; a second call does nothing.
    fn close(&self) {
        self.state.lock().unwrap_or_else(PoisonError::into_inner).0 = None;
    }

    fn __enter__(slf: Bound<'_, Self>) -> PyResult<Bound<'_, Self>> {
        if slf.get().closed() {
            return Err(closed("SetWriter"));
        }
        Ok(slf)
    }

    #[pyo3(signature = (*_exc))]
    fn __exit__(&self, _exc: &Bound<'_, PyTuple>) {
        self.close();
    }

    fn __repr__(&self) -> String {
        format!("<ketama.SetWriter {}>", self.action())
    }
}
