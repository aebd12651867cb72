// The public text-to-speech contract (request schema, formats, voices) lives in this folder.
export {};
