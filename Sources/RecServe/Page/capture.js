// The page's recorder, on the audio thread: each block of the microphone's samples (mono,
// the channels averaged) goes to the page as 16-bit integers, with its peak for the meter.
// While paused, the samples are dropped here, so a pause is no time in the recording.
"use strict";

class Capture extends AudioWorkletProcessor {
  constructor() {
    super();
    this.paused = false;
    this.port.onmessage = (event) => { this.paused = Boolean(event.data.paused); };
  }

  process(inputs) {
    const input = inputs[0];
    if (!input || input.length === 0 || this.paused) return true;
    const frames = input[0].length;
    const samples = new Int16Array(frames);
    let peak = 0;
    for (let i = 0; i < frames; i++) {
      let sum = 0;
      for (let c = 0; c < input.length; c++) sum += input[c][i];
      const value = Math.max(-1, Math.min(1, sum / input.length));
      peak = Math.max(peak, Math.abs(value));
      samples[i] = value < 0 ? value * 0x8000 : value * 0x7fff;
    }
    this.port.postMessage({ samples, peak }, [samples.buffer]);
    return true;
  }
}

registerProcessor("recnotes-capture", Capture);
