//! Every integration test, in one test binary. A binary per file would each link the whole
//! library and its dependencies again; one is linked once and runs all the tests on one
//! pool of threads. Modules are named by subject, so a test's name says where it is
//! (`cargo test --test it gpu_cpu::` runs one subject's); what several share is in `support`.
//!
//! One process runs them all, side by side: a test must not change what the process shares
//! (its environment, its current folder, its signal dispositions), must give a child what
//! it needs on the child's own `Command`, and must not count on being alone on the CPU.

mod support;

mod architecture;
mod broken_lesson;
mod chart;
mod check_cmd;
mod check_limits;
mod claims;
mod cli;
mod clocks;
mod closed_pipe;
mod code_view;
mod constant_heatmap;
mod cpu_async_copy;
mod cpu_atomics;
mod cpu_cli;
mod cpu_matrix;
mod cpu_recorded;
mod cpu_sass;
mod cpu_ui;
mod device_env;
mod device_sized;
mod ex_summary;
mod exercise_format;
mod exercise_wrong_answers;
mod exercises;
mod exercises_shipped;
mod fault_corpus;
mod figure_sources;
mod footprint;
mod gemm_reference;
mod gemm_tuned;
mod gpu;
mod gpu_attrs;
mod gpu_compare;
mod gpu_cpu;
mod gpu_exercises;
mod gpu_extras;
mod gpu_host;
mod gpu_knobs;
mod gpu_race_scopes;
mod gpu_races;
mod gpu_trace_spaces;
mod gpu_try;
mod gpu_ui_exercise;
mod hidden_figures;
mod hostile_pack;
mod knobs_lab;
mod knobs_loader;
mod knobs_problem;
mod launch_attrs;
mod lesson_extras;
mod lesson_loader;
mod lesson_packs;
mod loader_fuzz;
mod loading;
mod memcheck_fake;
mod ncu;
mod ncu_csv;
mod nvrtc;
mod nvrtc_args;
mod nvrtc_includes;
mod occupancy_api;
mod orientation;
mod pack_snapshots;
mod problem_cpu;
mod prose_figures;
mod ptxas_log;
mod pty_editor;
mod pty_signals;
mod pty_walk;
mod race_scopes;
mod racecheck_fake;
mod races_claims;
mod recording;
mod reorder_progress;
mod report_words;
mod sass_cli;
mod screens;
mod scrolling;
mod shared_gpu;
mod small_screens;
mod sweeps;
mod trace_nvrtc;
mod trace_ptxas;
mod trace_recorded;
mod try_cli;
mod try_lab;
mod try_pty;
mod try_screen;
mod ui_exercise;
mod ui_exercise_screens;
mod ui_loop;
mod worker_device;
mod worker_faults;
mod worker_resume;
