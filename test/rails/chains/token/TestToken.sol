// SPDX-License-Identifier: MIT
// Test contracts for the chain watcher tests on anvil (test/rails/chains/evm-anvil.test.ts). Compiled
// once into TestToken.json beside this file (see its "compiledWith"), so the tests need no compiler.
// Each token's decimals are code, not storage, so anvil_setCode can put the runtime code at any
// address (such as the configured USDT contract) without running a constructor.
pragma solidity 0.8.37;

/// A minimal ERC-20: anyone may mint (a test token), holders transfer, each move logs Transfer.
abstract contract TestToken {
    event Transfer(address indexed from, address indexed to, uint256 value);

    mapping(address => uint256) public balanceOf;
    uint256 public totalSupply;

    function decimals() public pure virtual returns (uint8);

    function mint(address to, uint256 value) external {
        totalSupply += value;
        balanceOf[to] += value;
        emit Transfer(address(0), to, value);
    }

    function transfer(address to, uint256 value) external returns (bool) {
        uint256 held = balanceOf[msg.sender];
        require(held >= value, "balance too low");
        balanceOf[msg.sender] = held - value;
        balanceOf[to] += value;
        emit Transfer(msg.sender, to, value);
        return true;
    }
}

/// Six decimals, as USDT.
contract TestToken6 is TestToken {
    function decimals() public pure override returns (uint8) {
        return 6;
    }
}

/// Eighteen decimals, as most ERC-20 tokens.
contract TestToken18 is TestToken {
    function decimals() public pure override returns (uint8) {
        return 18;
    }
}

/// Passes the coins it is sent on to `to` inside the call: a transfer no block's transaction list
/// shows as going to `to` (an "internal" transfer, as exchanges' hot wallets and smart wallets make).
contract Forwarder {
    function forward(address payable to) external payable {
        (bool ok, ) = to.call{value: msg.value}("");
        require(ok, "forward failed");
    }
}
