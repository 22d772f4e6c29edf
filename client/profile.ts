// The profile page's islands as one file (decision 220). That page always shows the avatar form, a
// tooltip, dialogs and the live-session socket: one request instead of four, each island still starting
// as its own entry does. Other pages keep loading each island where its markup is (IslandScript).
// The build lists the entries this one holds (island-bundles.json); the server then points those
// islands' script tags on the profile page at this file, which the browser fetches and runs once.
import './avatar.ts';
import './tooltip.ts';
import './dialogs.ts';
import './socket.ts';
