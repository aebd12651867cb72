/**
 * Turns the model may start writing on its own (the user's next line); a reply stops before them.
 * One list for every text engine: llama.cpp gets it as stop triggers, remote servers as `stop`.
 */
export const STOP_SEQUENCES = ["\nYou:", "\nUser:", "\n### User"];
