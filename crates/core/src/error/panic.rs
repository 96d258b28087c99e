//! A panic's or a cancelled task's message, for the errors that report one.

/// What a task that did not finish says: its panic's message, or why it was cancelled.
pub fn join_message(join: tokio::task::JoinError) -> String {
    match join.try_into_panic() {
        Ok(panic) => panic_message(&*panic),
        Err(join) => join.to_string(),
    }
}

/// The text of a panic payload.
pub fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    if let Some(s) = payload.downcast_ref::<&str>() {
        (*s).to_owned()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        "a non-string panic payload".to_owned()
    }
}
