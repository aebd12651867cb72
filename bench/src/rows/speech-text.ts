/**
 * The speech rows' fixed text: 200 words of plain English prose (several sentences, some commas
 * and numbers), about what a character's longer reply read aloud would be. Changing it changes
 * every speech figure: keep it fixed.
 */
export const SPEECH_TEXT = [
  "The lighthouse on the northern cape was built in 1874, and for more than a century a keeper climbed its narrow stairs every evening to light the lamp.",
  "The last keeper, a quiet woman named Margaret, kept a logbook in which she wrote the weather, the ships that passed, and the birds that rested on the gallery rail.",
  "On calm nights she could hear the bells of the fishing boats long before she saw their lanterns.",
  "When storms came from the west, the whole tower hummed like a struck glass, and she would sit by the lamp with a pot of tea, counting the seconds between the flashes of lightning and the thunder.",
  "In the spring of 1962 a small yacht lost its mast two miles offshore.",
  "Margaret saw its flare, telephoned the harbour, and kept the beam turned towards the wreck until the lifeboat reached it at dawn.",
  "All four sailors survived.",
  "Years later one of them returned with his grandchildren, and together they read her careful handwriting describing that long, cold night.",
  "Her logbook now rests in a case beside the door.",
  "Today the lamp turns by itself, but visitors still climb the stairs to watch the sea.",
].join(" ");

export const SPEECH_TEXT_WORDS = SPEECH_TEXT.split(/\s+/).filter(Boolean).length;
