const express = require('express');
//              ^ import.require
const { join } = require('path');
const util = require('./util');

function start(port) {
//       ^ definition.function
  const app = express();
//            ^ reference.call
  app.listen(port, () => console.log(join('a', 'b')));
//    ^ reference.call
//                                   ^ reference.call
  return util.helper(app);
//            ^ reference.call
//                   ^ reference.argument
}

class Server extends EventEmitter {
//    ^ definition.class
//                   ^ reference.inherits
  start() { return start(this.port); }
//^ definition.method
}

module.exports = { start, Server };
