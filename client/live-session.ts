// A signed-in page's islands as one file (decision 220): every such page renders the live-session
// socket and its session-changed dialog together (views/components/LiveSession.tsx), so it fetches both
// in one request. The profile page has a bundle of its own (client/profile.ts); pages without a session
// load the dialog island on its own where they render a dialog.
import './dialogs.ts';
import './socket.ts';
