//! green-tea-inproc's app with layers that do nothing: `green-tea-layered-inproc N` answers N
//! `POST /orders` as green-tea-inproc does, through one app layer and one route layer (tower's
//! `MapRequestLayer` with the identity, so what is measured is what a layer costs green-tea,
//! not the layer's own work). Not in the default lists; see docs/benchmarks.md, "Layers".

use bench_servers::{answer_in_process, current_thread_runtime, green_tea_app, request_count};

fn main() {
    let count = request_count();
    current_thread_runtime().block_on(async move {
        let app = green_tea_app::layered_app();
        app.start().await.expect("providers build");
        answer_in_process(app, count).await;
    });
}
