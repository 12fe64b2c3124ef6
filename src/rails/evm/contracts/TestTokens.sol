// SPDX-License-Identifier: MIT
// Test contracts for the forwarder tests and bench on anvil (test/rails/evm/forwarders-anvil.test.ts,
// bench/settle.ts); never deployed by paygate. Compiled with Forwarders.sol by `npm run contracts:build`
// into TestTokens.json. Each behaves as a kind of token seen on real chains, or as a hostile party.
pragma solidity 0.8.37;

/// Balances, minting (anyone: a test token) and the Transfer log the tokens below share.
abstract contract Ledger {
    event Transfer(address indexed from, address indexed to, uint256 value);

    mapping(address => uint256) public balanceOf;

    function mint(address to, uint256 value) external {
        balanceOf[to] += value;
        emit Transfer(address(0), to, value);
    }

    function move(address from, address to, uint256 value) internal {
        uint256 held = balanceOf[from];
        require(held >= value, "balance too low");
        balanceOf[from] = held - value;
        balanceOf[to] += value;
        emit Transfer(from, to, value);
    }
}

/// As Ethereum's USDT: six decimals, and `transfer` returns nothing.
contract UsdtLike is Ledger {
    function decimals() external pure returns (uint8) {
        return 6;
    }

    function transfer(address to, uint256 value) external {
        move(msg.sender, to, value);
    }
}

/// As a BEP-20 on BNB Smart Chain (BSC-USD): eighteen decimals, `transfer` returns true.
contract Bep20Like is Ledger {
    function decimals() external pure returns (uint8) {
        return 18;
    }

    function transfer(address to, uint256 value) external returns (bool) {
        move(msg.sender, to, value);
        return true;
    }
}

/// Says no without reverting: `transfer` moves nothing and returns false.
contract FalseToken is Ledger {
    function transfer(address, uint256) external pure returns (bool) {
        return false;
    }
}

/// A paused or blacklisting token: every `transfer` reverts.
contract RevertingToken is Ledger {
    function transfer(address, uint256) external pure returns (bool) {
        revert("transfers paused");
    }
}

/// Calls back into `target` with `data` (armed by the test) while it is being paid or asked to
/// transfer, records whether that call went through, then behaves: a reentrancy attempt by a token
/// or by a destination.
contract Reentrant is Ledger {
    address public target;
    bytes public data;
    uint256 public attempts;
    uint256 public succeeded;

    function arm(address target_, bytes calldata data_) external {
        target = target_;
        data = data_;
    }

    function transfer(address to, uint256 value) external returns (bool) {
        callBack();
        move(msg.sender, to, value);
        return true;
    }

    receive() external payable {
        callBack();
    }

    function callBack() private {
        if (target == address(0)) return;
        attempts += 1;
        (bool ok, ) = target.call(data);
        if (ok) succeeded += 1;
    }
}

/// A destination that cannot receive the network's coin.
contract RefusingDestination {
    receive() external payable {
        revert("no coin here");
    }
}

/// A destination that spends all the gas it is given when paid the coin.
contract GasBurner {
    uint256 private spins;

    receive() external payable {
        while (true) {
            spins += 1;
        }
    }
}
