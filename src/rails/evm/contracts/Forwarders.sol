// SPDX-License-Identifier: MIT
// Deposit forwarders (issue 40): each payment's address is the CREATE2 address of a forwarder that
// can send what it holds to one destination only, the merchant's settlement address. Compiled by
// `npm run contracts:build` into Forwarders.json beside this file (docs/settlement.md).
pragma solidity 0.8.37;

/// The code every forwarder runs: each forwarder is an EIP-1167 clone of it, created by the factory
/// below. A forwarder stores nothing. Its destination is bound into its address (the CREATE2 salt is
/// keccak256(destination, salt)), and only the factory may make it move funds, which the factory does
/// only towards the destination that address was derived from. No owner, no setter, no upgrade.
contract DepositForwarder {
    /// The factory that created this code: the only caller `flush` accepts.
    address public immutable factory;
    /// Gas a destination gets to receive the coin: plenty for a smart wallet, and a destination that
    /// burns it all fails alone rather than the whole flush (see checkGas).
    uint256 private constant COIN_CALL_GAS = 100_000;

    /// `token` is address(0) for the network's coin.
    event Forwarded(address indexed token, address indexed destination, uint256 amount);
    /// A token (or the coin) that would not move: it stays here, and a later flush may try again.
    event ForwardFailed(address indexed token, address indexed destination, uint256 amount);

    error NotFactory();
    /// A call failed for want of gas: the whole flush fails, so no estimate settles on a limit too low.
    error OutOfGas();

    constructor() {
        factory = msg.sender;
    }

    /// Coin sent to a forwarder that already exists waits for the next flush.
    receive() external payable {}

    /// Sends everything this forwarder holds of `tokens` and of the coin to `destination`. Each token
    /// on its own: one that fails (reverts, returns false, is no contract) leaves the others moving.
    function flush(address destination, address[] calldata tokens) external {
        if (msg.sender != factory) revert NotFactory();
        for (uint256 i = 0; i < tokens.length; i++) {
            forwardToken(tokens[i], destination);
        }
        uint256 coin = address(this).balance;
        if (coin == 0) return;
        bool sent;
        uint256 before = gasleft();
        assembly ("memory-safe") {
            // No return data is copied: a destination cannot make this call costly by answering at length.
            let limit := gas()
            if gt(limit, COIN_CALL_GAS) { limit := COIN_CALL_GAS }
            sent := call(limit, destination, coin, 0, 0, 0, 0)
        }
        if (sent) emit Forwarded(address(0), destination, coin);
        else {
            checkGas(before);
            emit ForwardFailed(address(0), destination, coin);
        }
    }

    function forwardToken(address token, address destination) private {
        bool ok;
        uint256 amount;
        uint256 before = gasleft();
        assembly ("memory-safe") {
            // balanceOf(address(this)): a word of at least 32 bytes, else the token is not one.
            mstore(0, shl(224, 0x70a08231))
            mstore(4, address())
            ok := staticcall(gas(), token, 0, 36, 0, 32)
            ok := and(ok, gt(returndatasize(), 31))
            amount := mul(ok, mload(0)) // 0 when unknown
        }
        if (ok && amount == 0) return;
        if (ok) {
            before = gasleft();
            assembly ("memory-safe") {
                // transfer(destination, amount), built above the free memory pointer (scratch use only).
                let p := mload(0x40)
                mstore(p, shl(224, 0xa9059cbb))
                mstore(add(p, 4), destination)
                mstore(add(p, 36), amount)
                ok := call(gas(), token, 0, p, 68, 0, 32)
                switch returndatasize()
                // Nothing returned (Ethereum's USDT): success if the call did not revert and the token is code.
                case 0 { ok := and(ok, gt(extcodesize(token), 0)) }
                // Else the first word must be true; `false` or anything shorter is a failure.
                default { ok := and(ok, and(gt(returndatasize(), 31), eq(mload(0), 1))) }
            }
        }
        if (ok) emit Forwarded(token, destination, amount);
        else {
            checkGas(before);
            emit ForwardFailed(token, destination, amount);
        }
    }

    /// A call that ran out of gas leaves about 1/64 of what it had here (EIP-150): that is no failure
    /// of the token or the destination but of the gas limit, and must not pass for one. (A failure
    /// that spends more than 15/16 of the gas counts as that too: the whole flush fails, as it should.)
    function checkGas(uint256 before) private view {
        if (gasleft() < before / 16) revert OutOfGas();
    }
}

/// Computes forwarder addresses and, in one call, creates the ones that do not exist yet and flushes
/// them all. Anyone may call it: whoever calls only pays the gas, as every forwarder can send to its own
/// destination alone. paygate's fee payer calls it with a key that holds only the network's coin.
contract ForwarderFactory {
    /// The code of every forwarder (created by this factory: nonce 1, so its address follows from ours).
    address public immutable implementation;
    /// keccak256 of a forwarder's creation code (EIP-1167 around `implementation`), for CREATE2 addresses.
    bytes32 public immutable cloneCodeHash;

    /// One payment's forwarder: the merchant's settlement address and paygate's salt of the payment.
    struct Deposit {
        address destination;
        bytes32 salt;
    }

    /// This forwarder was not flushed (its destination is the zero address or this factory, its address
    /// holds other code, or its call failed): the others in the call went on.
    event FlushFailed(address indexed forwarder);

    error Reentered();
    /// A forwarder failed for want of gas: the whole flush fails, so no estimate settles on a limit too low.
    error OutOfGas();

    /// Set during a flush: a token or destination calling back in is refused (transient, EIP-1153).
    bool private transient flushing;

    constructor() {
        address code = address(new DepositForwarder());
        implementation = code;
        cloneCodeHash = keccak256(cloneCode(code));
    }

    /// The CREATE2 address (EIP-1014) of the forwarder of `destination` and `salt`, created or not.
    function forwarderAddress(address destination, bytes32 salt) public view returns (address) {
        bytes32 hash = keccak256(abi.encodePacked(bytes1(0xff), address(this), boundSalt(destination, salt), cloneCodeHash));
        return address(uint160(uint256(hash)));
    }

    /// Creates each deposit's forwarder if it does not exist, then sends what it holds of `tokens`
    /// and of the coin to its destination. A forwarder that fails does not stop the others.
    function flush(Deposit[] calldata deposits, address[] calldata tokens) external {
        if (flushing) revert Reentered();
        flushing = true;
        for (uint256 i = 0; i < deposits.length; i++) {
            address destination = deposits[i].destination;
            address forwarder = forwarderAddress(destination, deposits[i].salt);
            uint256 before = gasleft();
            // Funds sent to the zero address or to this factory could never be spent again: refused.
            if (destination == address(0) || destination == address(this)) {
                failed(forwarder, before);
                continue;
            }
            if (forwarder.code.length == 0 && !create(destination, deposits[i].salt)) {
                failed(forwarder, before);
                continue;
            }
            before = gasleft();
            try DepositForwarder(payable(forwarder)).flush(destination, tokens) {}
            catch (bytes memory reason) {
                if (bytes4(reason) == DepositForwarder.OutOfGas.selector) revert OutOfGas();
                failed(forwarder, before);
            }
        }
        flushing = false;
    }

    /// A failure for want of gas (a few 64ths left, EIP-150, through each call level) fails the whole
    /// flush, so that a gas estimate never settles on a limit that skips forwarders; any other
    /// failure is this forwarder's alone.
    function failed(address forwarder, uint256 before) private {
        if (gasleft() < before / 16) revert OutOfGas();
        emit FlushFailed(forwarder);
    }

    function create(address destination, bytes32 salt) private returns (bool) {
        bytes memory code = cloneCode(implementation);
        bytes32 bound = boundSalt(destination, salt);
        address created;
        assembly ("memory-safe") {
            // Coin already at the address (sent before creation) stays with the new forwarder.
            created := create2(0, add(code, 32), mload(code), bound)
        }
        return created != address(0);
    }

    /// The destination is part of the salt: another destination gives another address.
    function boundSalt(address destination, bytes32 salt) private pure returns (bytes32) {
        return keccak256(abi.encode(destination, salt));
    }

    /// EIP-1167 creation code of a minimal proxy delegating every call to `target` (55 bytes).
    function cloneCode(address target) private pure returns (bytes memory) {
        return abi.encodePacked(hex"3d602d80600a3d3981f3363d3d373d3d3d363d73", target, hex"5af43d82803e903d91602b57fd5bf3");
    }
}
